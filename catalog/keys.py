"""Every key of the catalog, each declared once on the function that names it.

Ids are integers, and the type and tag segments are checked against the type
registry and the tag pattern before they get here (``types.py``,
``documents.is_tag``): no user text becomes part of a key unvalidated.
"""

from config.keylayout import register_event_route, register_move, tagged
from config.keys import register_event_stream
from config.keyspace import keyspace, register_app

APP = "catalog"
EVENTS = register_event_stream(APP)  # the activity stream this app's writes append to
# Key layout 1 had no hash tags (catalog:…): manage.py migrate_keys renames each key to today's name and
# moves this app's old events into its stream (config/keylayout.py).
register_move(APP, "catalog:*", tagged("catalog:", "catalog"))
register_event_route(APP, lambda fields: EVENTS)
register_app(APP, "catalog:")
key = keyspace.declarer(APP)

LIST = ("catalog:product_list",)
DETAIL = ("catalog:product_detail",)
PRODUCT_URL = "/catalog/products/{id}/"
SORTS = ("name", "price", "rating", "reviews")
EBOOK = "8 Data Modeling Patterns in Redis"


@key(
    "string",
    "Id counter (INCR)",
    "The last id handed out for products and reviews: INCRBY 100 draws a block for one server process, "
    "INCRBY n a seeder's or an import's batch.",
    why="INCRBY is atomic, so two writers never get the same id, and ids survive restarts because they live "
    "in Redis, not in process memory; a block spares each add the round trip that drew its id.",
)
def ids(entity: str) -> str:
    return f"catalog:{{catalog}}:ids:{entity}"


def product_ids() -> str:
    return ids("product")


def review_ids() -> str:
    return ids("review")


@key(
    "hash",
    f"{EBOOK}: embedded, polymorphic, partial embed and aggregate patterns",
    "One product: list fields, details, images/videos as JSON, its type's own fields, the 3 newest "
    "reviews (recent_reviews) and num_reviews/sum_ratings.",
    why="Everything the product page shows is one HGETALL: details are embedded rather than referenced, "
    "bounded lists (≤10 images, ≤3 videos) ride along as JSON, and the newest reviews and the rating "
    "aggregate are copies kept right in each review's own script.",
    screens=(*LIST, *DETAIL, "catalog:product_edit"),
    index="catalog:{catalog}:index:products",
    url=PRODUCT_URL,
)
def product(product_id: int | str) -> str:
    return f"catalog:{{catalog}}:product:{product_id}"


@key(
    "zset",
    f"{EBOOK}: referenced one-to-many (unbounded)",
    "The ids of a product's reviews, scored by publication time.",
    why="Reviews are unbounded, so they live in hashes of their own; this sorted set references them in "
    "time order, so a page of the newest is ZREVRANGE-shaped (SORT BY nosort GET joins the fields).",
    screens=(*DETAIL, "catalog:review_list"),
    url=PRODUCT_URL,
)
def product_reviews(product_id: int | str) -> str:
    return f"catalog:{{catalog}}:product:{product_id}:reviews"


@key(
    "hash",
    f"{EBOOK}: referenced one-to-many (unbounded)",
    "One review: product, author, rating 0–5, comment, published_at.",
    why="A hash per review keeps the product hash small however many reviews it gets; the review names "
    "its product, so a delete finds the set and the aggregate to fix.",
    screens=("catalog:review_list", "catalog:review_delete"),
)
def review(review_id: int | str) -> str:
    """``review("*")`` is the pattern SORT ... GET joins on."""
    return f"catalog:{{catalog}}:review:{review_id}"


@key(
    "zset",
    "Index (sorted set of ids)",
    "Every product id, scored by creation time: enumerates products and orders the list by newest.",
    why="A sorted set pages with ZRANGE offsets and joins with the type and tag sets inside Redis "
    "(ZINTERSTORE), so no screen ever loads every id.",
    screens=LIST,
)
def products() -> str:
    """Every product id, scored by creation time: the list's default order."""
    return "catalog:{catalog}:index:products"


@key(
    "zset",
    f"{EBOOK}: sorted index kept with the aggregate",
    "Product ids scored by name (prefix code), price, average rating or review count, for the list sorts.",
    why="Redis sorts only by score, so each sortable column has its own sorted set, written in the same "
    "script as the field (the rating and count ones by each review's add and delete).",
    screens=LIST,
)
def sort_index(name: str) -> str:
    """One sorted set per sortable column: name, price, rating, reviews."""
    return f"catalog:{{catalog}}:index:by:{name}"


@key(
    "zset",
    "Lexicographic index (key-value design notes)",
    "`<casefolded name>\\0<id>` members at score 0: ZRANGEBYLEX finds names by prefix.",
    why="With every score equal a sorted set orders its members as bytes, so a prefix is a range "
    "[prefix, prefix\\xff] and search never scans products.",
    screens=LIST,
)
def names() -> str:
    """Lexicographic index of ``<casefolded name>\\x00<id>`` for prefix search."""
    return "catalog:{catalog}:index:names"


@key(
    "hash",
    "Inverted index: unique key",
    "Uppercased SKU → product id: exact SKU search and SKU uniqueness.",
    why="A hash field per SKU is an O(1) lookup; each product write checks it inside its own script, so two "
    "products can never claim the same SKU.",
    screens=(*LIST, "catalog:product_add", "catalog:product_edit"),
)
def skus() -> str:
    return "catalog:{catalog}:index:skus"


@key(
    "set",
    f"{EBOOK}: polymorphic pattern, one index per type",
    "The ids of the products of one type (earbuds, game_console, …).",
    why="All types share one product collection; a set per type is the e-book's `where type = …` "
    "without a search module, and intersects with tag sets inside Redis.",
    screens=LIST,
)
def type_index(type_slug: str) -> str:
    """The set of one type's ids: the type filter's operand in the list's set algebra."""
    return f"catalog:{{catalog}}:index:type:{type_slug}"


@key(
    "zset",
    f"{EBOOK}: polymorphic pattern, a sorted index per type",
    "The ids of the products of one type, scored by creation time: the list filtered by type alone, "
    "newest or oldest first.",
    why="The list's commonest filter is one type in the default order; a sorted set per type makes it a "
    "ZRANGE-shaped page (SORT ... BY nosort LIMIT GET) that costs the page, not an intersection of the "
    "whole creation index with the type set on every request. Written beside the type set in the "
    "product's own script.",
    screens=LIST,
)
def type_created(type_slug: str) -> str:
    """One type's ids scored by creation time: that type's list, newest first, is a page read."""
    return f"catalog:{{catalog}}:index:type:{type_slug}:created"


@key(
    "set",
    "Tag system (the Redis tags tutorial)",
    "The ids of the products carrying one tag.",
    why="Sets are made for tags: all-of is SINTER, any-of SUNION, none-of SDIFF, computed in Redis.",
    screens=LIST,
)
def tag_index(tag: str) -> str:
    return f"catalog:{{catalog}}:index:tag:{tag}"


@key(
    "zset",
    "Tag system (the Redis tags tutorial): tag cloud",
    "Every tag in use, scored by how many products carry it (the list's tag chips).",
    why="ZINCRBY in each product write keeps the counts, ZREMRANGEBYSCORE drops tags nobody uses, and "
    "ZREVRANGE reads the most used tags without touching the tag sets.",
    screens=LIST,
)
def tags() -> str:
    return "catalog:{catalog}:index:tags"


@key(
    "zset",
    "Temporary result (expires)",
    "The filtered ids of one list query, scored by the sort column; deleted by the same transaction, "
    "EXPIRE 60 as a backstop.",
    why="Set algebra with a sort needs somewhere to put the intermediate result; a random name and a "
    "short TTL mean no two requests share one and nothing lingers.",
    screens=LIST,
)
def temp(token: str) -> str:
    """A list query's sorted result; ``token`` is a random hex string."""
    return f"catalog:{{catalog}}:tmp:{token}"


@key(
    "set",
    "Temporary result (expires)",
    "One list query's intermediate id sets: the any-of union, the search hits, the combined filter.",
    why="SINTERSTORE/SUNIONSTORE/SDIFFSTORE work on plain sets, cheaper than sorted sets; only the final "
    "step pays for an order. Deleted by the same transaction, EXPIRE 60 as a backstop.",
    screens=LIST,
)
def temp_set(token: str, part: str) -> str:
    """A list query's intermediate set of ids (``part``: any, q, ids)."""
    return f"catalog:{{catalog}}:tmp:{token}:{part}"


@key(
    "set",
    "Inverted index: trigrams (n-grams) of a name",
    "The ids of the products whose name holds one three-character piece (`pho` holds Smartphone X).",
    why="A search for any part of a name is SINTER of its pieces' sets, which Redis answers by walking the "
    "smallest, so its cost follows the rarest piece, not the catalog; plain sets need no search module. "
    "Written in the product's own script, from the name the script checks is still stored.",
    screens=(*LIST, "catalog:product_suggest"),
)
def ngram(gram: str) -> str:
    """One piece's set of ids; ``gram`` is three folded letters or digits (``ngrams.grams``), never raw input."""
    return f"catalog:{{catalog}}:ngram:{gram}"
