"""Products: create, edit, delete (each one checked script with every index), and the one-HGETALL read."""

from __future__ import annotations

import random
import time

from catalog import keys, types
from catalog.documents import Product, sku_key
from catalog.store import skus
from catalog.store.batch import Batch
from catalog.store.core import APP, REVIEWS, EditConflict, NotFound, SkuTaken, queue_indexes
from config.activity import Actor
from config.redis import client
from config.store import Busy, back_off, queue_event, watch_retries
from config.store.ids import IdBlock
from config.store.scripts import outcome

# This process's block of product ids in each partition, for ``add``.
_IDS = tuple(IdBlock(keys.product_ids(p), keys.PARTITIONS, p) for p in keys.partitions())


_current = [random.randrange(keys.PARTITIONS)]  # the partition this process's adds go to, its block at hand


def _new_partition() -> int:
    """The partition a new product goes to: this process's current one while its block of ids lasts,
    then the next (so each block is used whole, and processes and blocks spread the products evenly)."""
    if not _IDS[_current[0]].holds_ids():
        _current[0] = (_current[0] + 1) % keys.PARTITIONS
    return _current[0]


def new_product_id() -> int:
    """The id for the next product (INCR), taken before ``create`` so its event can link to it."""
    p = _new_partition()
    return keys.id_in(p, client().incr(keys.product_ids(p)))


def create(product_id: int, product: Product, *, actor: Actor, at: float | None = None) -> int:
    """Store a new product with its indexes and its empty review aggregate, in one script (with several
    partitions, after the SKU's claim: ``skus``); returns its id. SkuTaken writes nothing."""
    outcome(_create(product_id, product, actor=actor, at=at), SkuTaken)
    return product_id


def add(product: Product, *, actor: Actor, at: float | None = None) -> int:
    """Store a new product under an id of this process's block (``IdBlock``), in ``create``'s script,
    which also checks the id was drawn and is free; returns the id. A stale id (the data was reset
    since) draws a new block and tries once more; SkuTaken writes nothing (the id goes back)."""
    block = _IDS[_new_partition()]
    for _ in range(2):
        product_id = block.take()
        reply = _create(product_id, product, actor=actor, at=at, drawn=True)
        if reply[0] == "ok":
            return product_id
        if reply[0] != "conflict":  # a taken SKU: the id goes back to the block
            block.put_back(product_id)
            outcome(reply, SkuTaken)
        block.drop()  # the id was stale or taken
    raise Busy(block.counter_key)


def _create(product_id: int, product: Product, *, actor: Actor, at: float | None, drawn: bool = False) -> list:
    """The create script's reply: ["ok"], or the first failed check (a conflict for an id that exists
    or was not drawn, a refusal for a taken SKU). A SKU claimed first is released when it refuses."""
    product.id = product_id
    product.created_at = product.updated_at = time.time() if at is None else at
    product.rev, product.num_reviews, product.sum_ratings = 1, 0, 0
    batch = Batch()
    key = keys.product(product_id)
    if drawn:
        batch.require_drawn(keys.product_ids(keys.partition_of(product_id)), keys.count_of(product_id))
    batch.require_absent(key)
    claimed = [(sku_key(product.sku), product_id)] if product.sku else []
    refused = skus.take(batch, claimed)
    if refused[0] != "ok":
        return refused
    batch.hset(key, mapping={**product.to_hash(), **REVIEWS.initial_fields()})
    queue_indexes(batch, product_id, None, product)
    queue_event(batch, actor.event("created", APP, "product", product_id, product.name), keys.events_of(product_id))
    reply = batch.run()
    if reply[0] != "ok":
        skus.give_back(claimed)
    return reply


def update(
    product_id: int,
    product: Product,
    rev: int,
    *,
    actor: Actor,
    current: Product | None = None,
    at: float | None = None,
) -> Product:
    """Replace a product's editable fields, ``rev`` the revision the form was built from, in one script
    that writes only if the hash still holds it. ``current``, the product as the caller read it (else
    read here), gives the indexes to undo. A type change drops the old type's fields in the same
    script. NotFound, EditConflict or SkuTaken write nothing."""
    key = keys.product(product_id)
    old = current if current is not None else get(product_id)
    if old is None:
        raise NotFound(key)
    if old.rev != rev:
        raise EditConflict(key)
    product.id, product.created_at, product.rev = product_id, old.created_at, old.rev + 1
    product.updated_at = time.time() if at is None else at
    fields = product.to_hash()
    batch = Batch()
    batch.require_field(key, "rev", str(rev))
    batch.require_field(key, "name", old.name)  # the name and SKU the pieces to drop were computed from
    batch.require_field(key, "sku", old.sku)
    moved = sku_key(old.sku) != sku_key(product.sku)
    claimed = [(sku_key(product.sku), product_id)] if product.sku and moved else []
    released = [(sku_key(old.sku), product_id)] if old.sku and moved else []
    outcome(skus.take(batch, claimed, str(product_id)), SkuTaken)
    batch.hset(key, mapping=fields)
    dropped = sorted(types.ALL_TYPE_FIELDS - set(fields))
    if dropped:
        batch.hdel(key, *dropped)
    queue_indexes(batch, product_id, old, product)
    queue_event(batch, actor.event("updated", APP, "product", product_id, product.name), keys.events_of(product_id))
    reply = batch.run()
    skus.give_back(released if reply[0] == "ok" else claimed)
    outcome(reply, SkuTaken)
    return product


def delete(product_id: int, *, actor: Actor) -> Product:
    """Delete a product, its reviews and every index entry, in one script (see ``delete_many``)."""
    deleted, _ = delete_many([product_id], actor=actor)
    if not deleted:
        raise NotFound(keys.product(product_id))
    return deleted[0]


def delete_many(product_ids: list[int], *, actor: Actor) -> tuple[list[Product], int]:
    """Delete many products, each with its reviews and every index entry: one checked script a
    partition, so a partition's products all go or none does; returns the products deleted and how
    many were already gone. Two round trips: every hash and review set, then the scripts, which check
    they are still as read; an edit or a review meanwhile makes that partition read again (then Busy)."""
    deleted: list[Product] = []
    remaining, conflict = list(product_ids), False
    for attempt in range(watch_retries()):
        pipe = client().pipeline(transaction=False)
        for product_id in remaining:
            pipe.hgetall(keys.product(product_id))
            pipe.zrange(keys.product_reviews(product_id), 0, -1)
        replies = pipe.execute()
        batches: dict[int, tuple[Batch, list[Product]]] = {}
        for product_id, current, review_ids in zip(remaining, replies[::2], replies[1::2]):
            if not current:
                continue
            old = Product.from_hash(product_id, current)
            key = keys.product(product_id)
            batch, olds = batches.setdefault(keys.partition_of(product_id), (Batch(), []))
            batch.require_field(key, "rev", str(old.rev))
            batch.require_field(key, "name", old.name)  # the name and SKU the pieces to drop were computed from
            batch.require_field(key, "sku", old.sku)
            batch.require_members(keys.product_reviews(product_id), review_ids)
            REVIEWS.queue_delete_all(batch, product_id, review_ids)
            batch.unlink(key)
            queue_indexes(batch, product_id, old, None)
            event = actor.event("deleted", APP, "product", product_id, old.name, gone=True)
            queue_event(batch, event, keys.events_of(product_id))
            olds.append(old)
        conflict = False
        for batch, olds in batches.values():
            try:
                outcome(batch.run())
            except EditConflict:
                conflict = True
                continue
            deleted.extend(olds)
        if not conflict:
            break
        done = {old.id for old in deleted}
        remaining = [product_id for product_id in remaining if product_id not in done]
        back_off(attempt)
    skus.give_back([(sku_key(old.sku), old.id) for old in deleted if old.sku])  # one round trip for them all
    if conflict:
        raise Busy(keys.product(remaining[0]))
    return deleted, len(product_ids) - len(deleted)


def get(product_id: int) -> Product | None:
    """The whole product, one HGETALL: the hash is bounded (≤10 images, ≤3 videos, 3 embedded reviews)."""
    data = client().hgetall(keys.product(product_id))
    return Product.from_hash(product_id, data) if data else None


def sku_owner(sku: str) -> int | None:
    owner = client().hget(keys.skus(), sku_key(sku)) if sku else None
    return int(owner) if owner else None
