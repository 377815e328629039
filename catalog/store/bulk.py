"""Bulk writes for the seeder and the importer: whole products with their reviews, pipelined."""

from __future__ import annotations

import json
from dataclasses import dataclass

from catalog import keys
from catalog.documents import Product, sku_key
from catalog.store.core import REVIEWS, SkuTaken, batch_event, queue_indexes, transact
from config.activity import Event
from config.redis import client
from config.store import queue_event


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
    would: the review hashes and set, the embed of the 3 newest, the aggregate
    and every index, so ``check_integrity`` holds after a seed or an import.
    """
    product.rev = product.rev or 1
    product.num_reviews = len(reviews)
    product.sum_ratings = sum(r.rating for r in reviews)
    copies = []
    for offset, review in enumerate(reviews):
        review_id = first_review_id + offset
        stored = {
            "author": review.author,
            "rating": str(review.rating),
            "comment": review.comment,
            "product": str(product.id),
            "published_at": repr(review.at),
        }
        pipe.hset(keys.review(review_id), mapping=stored)
        copies.append({"id": str(review_id), **{name: stored[name] for name in REVIEWS.embed_fields}})
    if reviews:
        pipe.zadd(keys.product_reviews(product.id), {c["id"]: float(c["published_at"]) for c in copies})
    # TODO(lead): ChildCollection has no public bulk writer yet; see /work/patches/catalog-children.diff.
    embed = REVIEWS.newest(copies)
    derived = {
        REVIEWS.embed_field: json.dumps(embed),
        REVIEWS.count_field: str(product.num_reviews),
        REVIEWS.sum_field: str(product.sum_ratings),
    }
    pipe.hset(keys.product(product.id), mapping={**product.to_hash(), **derived})
    queue_indexes(pipe, product.id, None, product)


def import_products(items: list[tuple[Product, list[NewReview]]], event: Event, at: float) -> list[int]:
    """Write a whole import in one transaction, or nothing: WATCH on the SKU index
    refuses it if another writer claimed one of its SKUs meanwhile."""
    first_product, first_review = reserve_ids(len(items), sum(len(r) for _, r in items))

    def write(pipe) -> list[int]:
        owners = pipe.hmget(keys.skus(), [sku_key(p.sku) for p, _ in items]) if items else []
        for (product, _), owner in zip(items, owners):
            if owner:
                raise SkuTaken(product.sku, int(owner))
        pipe.multi()
        ids = _queue_batch(pipe, items, first_product, first_review, at)
        queue_event(pipe, batch_event(event, ids[0] if ids else 0, f"{len(ids)} imported products"))
        return ids

    return transact((keys.skus(),), write)


def write_batch(items: list[tuple[Product, list[NewReview]]], event: Event, at: float) -> list[int]:
    """The seeder's batch: reserve ids, write everything in one MULTI/EXEC."""
    first_product, first_review = reserve_ids(len(items), sum(len(r) for _, r in items))
    pipe = client().pipeline(transaction=True)
    ids = _queue_batch(pipe, items, first_product, first_review, at)
    queue_event(pipe, batch_event(event, ids[0], f"{len(ids)} seeded products"))
    pipe.execute()
    return ids


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
