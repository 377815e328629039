"""What every part of the catalog store shares: the review collection, the errors, the
index bookkeeping that takes a product from its old state to its new one, and the WATCH retry."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import redis
from redis.client import Pipeline

from catalog import keys
from catalog.documents import Product, name_key, name_score, price_score, rating_score, sku_key
from config.activity import Event
from config.redis import client
from config.store.children import ChildCollection, Conflict

WATCH_RETRIES = 50
T = TypeVar("T")

REVIEWS = ChildCollection(
    parent_key=keys.product,
    child_key=keys.review,
    index_key=keys.product_reviews,
    ids_key=keys.review_ids(),
    parent_field="product",
    time_field="published_at",
    embed_field="recent_reviews",
    embed_fields=("author", "rating", "comment", "published_at"),
    count_field="num_reviews",
    sum_field="sum_ratings",
    summed="rating",
)


class SkuTaken(ValueError):
    def __init__(self, sku: str, owner: int):
        super().__init__(f"SKU {sku} belongs to product {owner}")
        self.sku, self.owner = sku, owner


class EditConflict(RuntimeError):
    """The product changed since the edit form was opened."""


# --- derived data --------------------------------------------------------------


def lex_member(product: Product) -> str:
    return f"{name_key(product.name)}\x00{product.id}"


def queue_indexes(pipe, product_id: int, old: Product | None, new: Product | None) -> None:
    """Queue the index changes that take ``old`` to ``new`` (None: absent)."""
    member = str(product_id)
    if new is None:
        pipe.zrem(keys.products(), member)
        for name in keys.SORTS:
            pipe.zrem(keys.sort_index(name), member)
    else:
        pipe.zadd(keys.sort_index("name"), {member: name_score(new.name)})
        pipe.zadd(keys.sort_index("price"), {member: price_score(new.price)})
        if old is None:
            pipe.zadd(keys.products(), {member: new.created_at})
            queue_review_indexes(pipe, product_id, new.num_reviews, new.sum_ratings)
    old_lex, new_lex = old and lex_member(old), new and lex_member(new)
    if old_lex != new_lex:
        if old_lex:
            pipe.zrem(keys.names(), old_lex)
        if new_lex:
            pipe.zadd(keys.names(), {new_lex: 0})
    old_sku, new_sku = old and sku_key(old.sku), new and sku_key(new.sku)
    if old_sku != new_sku:
        if old_sku:
            pipe.hdel(keys.skus(), old_sku)
        if new_sku:
            pipe.hset(keys.skus(), new_sku, member)
    old_type, new_type = old and old.type, new and new.type
    if old_type != new_type:  # the type's set (for the set algebra) and its creation index (for the page)
        if old_type:
            pipe.srem(keys.type_index(old_type), member)
            pipe.zrem(keys.type_created(old_type), member)
        if new_type:
            pipe.sadd(keys.type_index(new_type), member)
            pipe.zadd(keys.type_created(new_type), {member: new.created_at})
    old_tags, new_tags = set(old.tags if old else ()), set(new.tags if new else ())
    for tag in sorted(old_tags - new_tags):
        pipe.srem(keys.tag_index(tag), member)
        pipe.zincrby(keys.tags(), -1, tag)
    for tag in sorted(new_tags - old_tags):
        pipe.sadd(keys.tag_index(tag), member)
        pipe.zincrby(keys.tags(), 1, tag)
    if old_tags - new_tags:
        pipe.zremrangebyscore(keys.tags(), "-inf", 0)


def queue_review_indexes(pipe, product_id: int, count: int, total: int) -> None:
    """REVIEWS' on_change hook: the sort indexes that derive from the aggregate."""
    pipe.zadd(keys.sort_index("rating"), {str(product_id): rating_score(count, total)})
    pipe.zadd(keys.sort_index("reviews"), {str(product_id): count})


def owner_of(pipe, sku: str) -> int | None:
    owner = pipe.hget(keys.skus(), sku_key(sku))
    return int(owner) if owner else None


def transact(watched: tuple[str, ...], write: Callable[[Pipeline], T]) -> T:
    """Run a read-modify-write under WATCH, retried (bounded) when a watched key changes.

    ``write`` reads on the watching pipeline, may WATCH more keys, calls
    ``pipe.multi()`` and queues its writes; the queued MULTI/EXEC then either
    applies whole or raises WatchError and ``write`` runs again on fresh reads.
    """
    with client().pipeline(transaction=True) as pipe:
        for _ in range(WATCH_RETRIES):
            try:
                pipe.watch(*watched)
                result = write(pipe)
                pipe.execute()
                return result
            except redis.WatchError:
                continue
    raise Conflict(watched[0])


def batch_event(event: Event, object_id: int, label: str) -> Event:
    """A batch's event, named after its first product."""
    return Event(**{**event.fields(), "object_id": str(object_id), "label": label})
