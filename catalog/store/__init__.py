"""The catalog's only code that talks to Redis.

Writes: every product write is one checked Lua script (``batch.Batch``) that tests its preconditions (the SKU
is free, the edit form's revision is current, the review set is what was read) and writes the product and
every index derived from it (``queue_indexes`` writes the difference between the old and the new product) with
the event, atomically, all keys in KEYS. Reviews go through the shared ``ChildCollection``, whose scripts keep
the embed, the aggregate and the rating and review-count sort indexes.

Reads: the list is one transaction whatever the filters (two with a search), the detail page one HGETALL, a
page of reviews one SORT ... GET.
"""

from catalog.store.bulk import (
    ENTITIES,
    NewReview,
    counter_keys,
    ids_in_an_empty_catalog,
    import_products,
    last_ids,
    raise_ids,
    reserve_ids,
    restore_products,
    restore_reviews,
    write_batches,
)
from catalog.store.checks import rebuild_indexes
from catalog.store.core import NAMES, REVIEWS, EditConflict, NotFound, SkuTaken
from catalog.store.listing import ProductQuery, list_products, product_labels, product_page, suggest
from catalog.store.prefetch import LIVE_COUNT_LIMIT, SEARCH_LIMIT
from catalog.store.products import add, create, delete, delete_many, get, new_product_id, sku_owner, update
from catalog.store.reviews import (
    add_named_review,
    add_review,
    delete_review,
    get_review,
    reserve_review_ids,
    review_page,
)
from catalog.store.tagging import retag

__all__ = [
    "NAMES", "REVIEWS", "LIVE_COUNT_LIMIT", "SEARCH_LIMIT", "EditConflict", "NotFound", "SkuTaken", "new_product_id",
    "create", "add", "update", "delete", "delete_many", "get", "sku_owner", "retag", "ProductQuery", "list_products",
    "product_page", "add_review", "add_named_review", "reserve_review_ids", "delete_review", "get_review",
    "review_page", "ENTITIES", "NewReview", "counter_keys", "last_ids", "raise_ids", "reserve_ids",
    "ids_in_an_empty_catalog", "import_products", "write_batches", "restore_products", "restore_reviews",
    "rebuild_indexes", "suggest", "product_labels",
]  # fmt: skip
