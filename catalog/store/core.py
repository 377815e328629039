"""What every part of the catalog store shares: the review collection, the refusals, and the
index bookkeeping that takes a product from its old state to its new one."""

from __future__ import annotations

from functools import partial

from catalog import keys
from catalog.documents import Product, name_key, name_score, price_score, searched_text, sku_key, text_scores
from config.store import EditConflict, NotFound, Refused, pipelined
from config.store.children import ChildCollection
from config.store.ngrams import NgramIndex

APP = "catalog"


def _sort_index_by_product(column: str):
    """The sort index of ``column`` in a product's partition, by the product's id."""
    return lambda product_id: keys.sort_index(column, keys.partition_of(product_id))


# Every key a review write touches is in its product's partition: the review ids are drawn there too.
REVIEWS = ChildCollection(
    parent_key=keys.product,
    child_key=keys.review,
    index_key=keys.product_reviews,
    ids_key=lambda product_id: keys.review_ids(keys.partition_of(product_id)),
    parent_field="product",
    time_field="published_at",
    embed_field="recent_reviews",
    embed_fields=("author", "rating", "comment", "published_at"),
    count_field="num_reviews",
    events_key=keys.events_of,
    sum_field="sum_ratings",
    summed="rating",
    scores=((_sort_index_by_product("rating"), "average"), (_sort_index_by_product("reviews"), "count")),
    child_glob=lambda product_id: keys.review_glob(keys.partition_of(product_id)),
)


def _names(p: int) -> NgramIndex:
    return NgramIndex(
        gram_key=partial(keys.ngram, p=p),
        temp_set=lambda token: keys.temp_set(token, "ngram", p),
        temp_zset=partial(keys.temp, p=p),
        record_key=partial(keys.product_in, p),
        text_field="name",
        order_key=keys.sort_index("name", p),
        word_key=partial(keys.word, p=p),
        vocabulary_key=keys.vocabulary(p),
        long_key=keys.long_names(p),
    )


# Product names, searchable by any part, one index a partition: kept by queue_indexes, so in every
# product write's own script.
NAMES = tuple(_names(p) for p in keys.partitions())

__all__ = ["APP", "NAMES", "REVIEWS", "EditConflict", "NotFound", "SkuTaken", "lex_member", "queue_indexes"]


class SkuTaken(Refused):
    """The SKU belongs to another product (the ``sku`` field's error)."""


# --- derived data --------------------------------------------------------------


def products_by_id(ids: list[int]) -> dict[int, Product]:
    """The products of ``ids`` that exist, in that order: one pipeline of HGETALLs."""
    found = pipelined(ids, lambda pipe, product_id: pipe.hgetall(keys.product(product_id)))
    return {i: Product.from_hash(i, data) for i, data in zip(ids, found) if data}


def lex_member(product: Product) -> str:
    return f"{name_key(product.name)}\x00{product.id}"


def queue_indexes(pipe, product_id: int, old: Product | None, new: Product | None) -> None:
    """Queue the index changes that take ``old`` to ``new`` (None: absent) on a pipeline or a Batch, in
    the product's partition; a deleted product's review scores go with its reviews."""
    member, p = str(product_id), keys.partition_of(product_id)
    if new is None:
        pipe.zrem(keys.products(p), member)
        for name in ("name", "price", "type", "brand", "sku"):
            pipe.zrem(keys.sort_index(name, p), member)
    else:
        pipe.zadd(keys.sort_index("name", p), {member: name_score(new.name)})
        pipe.zadd(keys.sort_index("price", p), {member: price_score(new.price)})
        for name, score in text_scores(new).items():  # the columns sorted as text: type, brand, SKU
            pipe.zadd(keys.sort_index(name, p), {member: score})
        if old is None:
            pipe.zadd(keys.products(p), {member: new.created_at})
            REVIEWS.queue_scores(pipe, product_id, new.num_reviews, new.sum_ratings)
    old_lex, new_lex = old and lex_member(old), new and lex_member(new)
    if old_lex != new_lex:
        if old_lex:
            pipe.zrem(keys.names(p), old_lex)
        if new_lex:
            pipe.zadd(keys.names(p), {new_lex: 0})
    NAMES[p].queue_write(
        pipe, member, old and searched_text(old.name, old.sku), new and searched_text(new.name, new.sku)
    )
    old_sku, new_sku = old and sku_key(old.sku), new and sku_key(new.sku)
    if old_sku != new_sku and keys.SKUS_WITH_PRODUCTS:  # else claimed and released beside it (``skus``)
        if old_sku:
            pipe.hdel(keys.skus(), old_sku)
        if new_sku:
            pipe.hset(keys.skus(), new_sku, member)
    old_type, new_type = old and old.type, new and new.type
    if old_type != new_type:  # the type's set (for the set algebra) and its creation index (for the page)
        if old_type:
            pipe.srem(keys.type_index(old_type, p), member)
            pipe.zrem(keys.type_created(old_type, p), member)
        if new_type:
            pipe.sadd(keys.type_index(new_type, p), member)
            pipe.zadd(keys.type_created(new_type, p), {member: new.created_at})
    old_tags, new_tags = set(old.tags if old else ()), set(new.tags if new else ())
    for tag in sorted(old_tags - new_tags):
        pipe.srem(keys.tag_index(tag, p), member)
        pipe.zincrby(keys.tags(p), -1, tag)
    for tag in sorted(new_tags - old_tags):
        pipe.sadd(keys.tag_index(tag, p), member)
        pipe.zincrby(keys.tags(p), 1, tag)
    if old_tags - new_tags:
        pipe.zremrangebyscore(keys.tags(p), "-inf", 0)
