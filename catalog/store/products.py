"""Products: create, edit, delete (each one MULTI/EXEC with every index), and the one-HGETALL read."""

from __future__ import annotations

import time

from catalog import keys, types
from catalog.documents import Product, sku_key
from catalog.store.core import REVIEWS, EditConflict, SkuTaken, owner_of, queue_indexes, transact
from config.activity import Event
from config.redis import client
from config.store import queue_event
from config.store.children import NotFound


def new_product_id() -> int:
    """The id for the next product (INCR), taken before ``create`` so its event can link to it."""
    return client().incr(keys.product_ids())


def create(product_id: int, product: Product, event: Event, at: float | None = None) -> int:
    """Store a new product with its indexes and its empty review aggregate; returns its id."""
    product.id = product_id
    product.created_at = product.updated_at = time.time() if at is None else at
    product.rev, product.num_reviews, product.sum_ratings = 1, 0, 0

    def write(pipe) -> int:
        owner = owner_of(pipe, product.sku)
        if owner is not None:
            raise SkuTaken(product.sku, owner)
        pipe.multi()
        pipe.hset(keys.product(product.id), mapping={**product.to_hash(), **REVIEWS.initial_fields()})
        queue_indexes(pipe, product.id, None, product)
        queue_event(pipe, event)
        return product.id

    return transact((keys.skus(),), write)


def update(product_id: int, product: Product, rev: int, event: Event, at: float | None = None) -> Product:
    """Replace a product's editable fields. ``rev`` is the revision the form was built from.

    A type change drops the old type's fields in the same transaction, so a
    product never holds another type's fields. Raises NotFound, EditConflict
    or SkuTaken, and then writes nothing.
    """
    key = keys.product(product_id)

    def write(pipe) -> Product:
        current = pipe.hgetall(key)
        if not current:
            raise NotFound(key)
        old = Product.from_hash(product_id, current)
        if old.rev != rev:
            raise EditConflict(key)
        if sku_key(old.sku) != sku_key(product.sku):
            pipe.watch(keys.skus())
            owner = owner_of(pipe, product.sku)
            if owner is not None and owner != product_id:
                raise SkuTaken(product.sku, owner)
        product.id, product.created_at, product.rev = product_id, old.created_at, old.rev + 1
        product.updated_at = time.time() if at is None else at
        fields = product.to_hash()
        dropped = sorted(name for name in types.ALL_TYPE_FIELDS if name in current and name not in fields)
        pipe.multi()
        pipe.hset(key, mapping=fields)
        if dropped:
            pipe.hdel(key, *dropped)
        queue_indexes(pipe, product_id, old, product)
        queue_event(pipe, event)
        return product

    return transact((key,), write)


def delete(product_id: int, event: Event) -> Product:
    """Delete a product, its reviews, and every index, type and tag entry, in one transaction.

    WATCH on the review set makes a review added meanwhile retry the delete, so none is left dangling.
    """
    key, reviews_key = keys.product(product_id), keys.product_reviews(product_id)

    def write(pipe) -> Product:
        current = pipe.hgetall(key)
        if not current:
            raise NotFound(key)
        old = Product.from_hash(product_id, current)
        review_ids = pipe.zrange(reviews_key, 0, -1)
        pipe.multi()
        REVIEWS.queue_delete_all(pipe, product_id, review_ids)
        pipe.unlink(key)
        queue_indexes(pipe, product_id, old, None)
        queue_event(pipe, event)
        return old

    return transact((key, reviews_key), write)


def get(product_id: int) -> Product | None:
    """The whole product, details, embedded reviews and aggregate included: one HGETALL.

    The hash is bounded (≤10 images, ≤3 videos, 3 embedded reviews), so
    HGETALL is the e-book's "one read for the whole page".
    """
    data = client().hgetall(keys.product(product_id))
    return Product.from_hash(product_id, data) if data else None


def sku_owner(sku: str) -> int | None:
    return owner_of(client(), sku)
