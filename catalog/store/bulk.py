"""Bulk writes for the seeder and the importer: whole products with their reviews, deeply pipelined."""

from __future__ import annotations

from dataclasses import dataclass

from catalog import keys
from catalog.documents import Product, sku_key
from catalog.store.batch import Batch
from catalog.store.core import APP, REVIEWS, queue_indexes, refusal
from config.activity import Actor
from config.redis import client
from config.store import queue_event
from config.store.children import Child


@dataclass
class NewReview:
    author: str
    rating: int
    comment: str
    at: float


def last_product_id() -> int:
    return int(client().get(keys.product_ids()) or 0)


def reserve_ids(products: int, reviews: int) -> tuple[int, int]:
    """Reserve id ranges for a batch (INCRBY): returns the first product id and the first review id."""
    pipe = client().pipeline(transaction=False)
    pipe.incrby(keys.product_ids(), products)
    pipe.incrby(keys.review_ids(), reviews)
    last_product, last_review = pipe.execute()
    return last_product - products + 1, last_review - reviews + 1


def queue_new_product(pipe, product: Product, reviews: list[NewReview], first_review_id: int) -> None:
    """Queue a product (its id already reserved) with its reviews, written whole at once.

    Writes exactly what ``create`` followed by ``add_review`` for each review
    would: the review hashes and set, the embed of the 3 newest and the
    aggregate (the review machinery's bulk writer), the hash and every index,
    so ``check_integrity`` holds after a seed or an import. ``pipe`` is a
    pipeline or a checked ``Batch``.
    """
    product.rev = product.rev or 1
    children = [
        Child(first_review_id + n, {"author": r.author, "rating": str(r.rating), "comment": r.comment}, r.at)
        for n, r in enumerate(reviews)
    ]
    derived = REVIEWS.queue_bulk(pipe, product.id, children)
    product.num_reviews = len(reviews)
    product.sum_ratings = sum(r.rating for r in reviews)
    pipe.hset(keys.product(product.id), mapping={**product.to_hash(), **derived})
    queue_indexes(pipe, product.id, None, product)


def import_products(items: list[tuple[Product, list[NewReview]]], *, actor: Actor, at: float) -> list[int]:
    """Write a whole import as one checked script, or nothing: it refuses (SkuTaken) if another
    writer claimed one of its SKUs since the file was checked. Two round trips: the ids, then the script."""
    first_product, first_review = reserve_ids(len(items), sum(len(r) for _, r in items))
    batch = Batch()
    for product, _ in items:
        if product.sku:
            batch.require_owner(keys.skus(), sku_key(product.sku))
    ids = _queue_batch(batch, items, first_product, first_review, at)
    label = f"{len(ids)} imported products"
    queue_event(batch, actor.event("created", APP, "product", ids[0] if ids else 0, label))
    reply = batch.run()
    if reply[0] != "ok":
        raise refusal(reply, keys.skus())
    return ids


def write_batch(items: list[tuple[Product, list[NewReview]]], *, actor: Actor, at: float) -> list[int]:
    """The seeder's batch: reserve ids, then everything in one MULTI/EXEC (two round trips a batch),
    the index entries of the whole batch merged into one command per index key."""
    first_product, first_review = reserve_ids(len(items), sum(len(r) for _, r in items))
    pipe = client().pipeline(transaction=True)
    merged = _Merged(pipe)
    ids = _queue_batch(merged, items, first_product, first_review, at)
    merged.flush()
    queue_event(pipe, actor.event("created", APP, "product", ids[0], f"{len(ids)} seeded products"))
    pipe.execute()
    return ids


class _Merged:
    """A pipeline for a batch of new products: additions to the same index key become one command.

    New products only add to the indexes (members, fields, counts), and adds
    commute, so one ZADD/SADD/HSET per index key (and one ZINCRBY per tag) at
    the end writes exactly what one command per product would, in far fewer
    commands. Whole-hash writes go straight to the pipeline.
    """

    CHUNK = 1000  # members a command

    def __init__(self, pipe):
        self.pipe = pipe
        self.zsets: dict[str, dict[str, float]] = {}
        self.sets: dict[str, set[str]] = {}
        self.fields: dict[str, dict[str, str]] = {}
        self.counts: dict[tuple[str, str], int] = {}

    def zadd(self, key, mapping):
        self.zsets.setdefault(key, {}).update(mapping)

    def sadd(self, key, *members):
        self.sets.setdefault(key, set()).update(members)

    def zincrby(self, key, amount, value):
        self.counts[(key, value)] = self.counts.get((key, value), 0) + amount

    def hset(self, key, field=None, value=None, mapping=None):
        if mapping is None:
            self.fields.setdefault(key, {})[field] = value
        else:
            self.pipe.hset(key, mapping=mapping)

    def flush(self) -> None:
        for key, scores in self.zsets.items():
            members = list(scores.items())
            for start in range(0, len(members), self.CHUNK):
                self.pipe.zadd(key, dict(members[start : start + self.CHUNK]))
        for key, members in self.sets.items():
            ordered = sorted(members)
            for start in range(0, len(ordered), self.CHUNK):
                self.pipe.sadd(key, *ordered[start : start + self.CHUNK])
        for key, fields in self.fields.items():
            self.pipe.hset(key, mapping=fields)
        for (key, value), amount in self.counts.items():
            self.pipe.zincrby(key, amount, value)


def _queue_batch(pipe, items, first_product: int, first_review: int, at: float) -> list[int]:
    ids = []
    for offset, (product, reviews) in enumerate(items):
        product.id = first_product + offset
        product.created_at = product.created_at or at
        product.updated_at = product.updated_at or product.created_at
        queue_new_product(pipe, product, reviews, first_review)
        first_review += len(reviews)
        ids.append(product.id)
    return ids
