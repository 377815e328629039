"""Bulk writes for the seeder and the importer: whole products with their reviews, deeply pipelined."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from catalog import keys
from catalog.documents import Product, sku_key
from catalog.store.batch import Batch
from catalog.store.core import APP, REVIEWS, queue_indexes, refusal
from config.activity import Actor
from config.redis import client
from config.store import queue_event
from config.store.bulk import BulkWrite
from config.store.children import Child
from config.store.sending import Sender


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
    queue_event(batch, actor.event("created", APP, "product", ids[0] if ids else 0, label), keys.EVENTS)
    reply = batch.run()
    if reply[0] != "ok":
        raise refusal(reply, keys.skus())
    return ids


def write_batch(items: list[tuple[Product, list[NewReview]]], *, actor: Actor, at: float) -> list[int]:
    """One batch: reserve ids, then everything in one script (two round trips), the index
    entries of the whole batch merged into one command per index key."""
    return write_batches(items, actor=actor, at=at, batch=max(1, len(items)))


def write_batches(
    items: list[tuple[Product, list[NewReview]]], *, actor: Actor, at: float, batch: int = 200
) -> list[int]:
    """The seeder's writes: ids for all ``items`` in one round trip, then one script per
    ``batch`` products with their reviews, each sent while the next is built (a second thread
    waits on Redis while this one joins strings; one batch may wait its turn, so that a slow
    script does not stop the building), and an event per batch."""
    first_product, first_review = reserve_ids(len(items), sum(len(r) for _, r in items))
    ids: list[int] = []
    with Sender("catalog-bulk", depth=2) as sender:
        for start in range(0, len(items), batch):
            chunk = items[start : start + batch]
            bulk = BulkWrite()
            written = _queue_batch(bulk, chunk, first_product + start, first_review, at)
            first_review += sum(len(r) for _, r in chunk)
            queue_event(
                bulk, actor.event("created", APP, "product", written[0], f"{len(written)} seeded products"), keys.EVENTS
            )
            sender.send(bulk.send_later())
            ids += written
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


# --- restoring an export -------------------------------------------------------------------


RESTORE_BATCH = 500  # products, or products' review totals, a script
RESTORE_REVIEWS = 5000  # reviews a script


def _finish_restore(bulk: BulkWrite, counter: str, entity: str, first: int, last: int, count: int, actor: Actor) -> int:
    """The end of an entity's restore: its id counter at the highest id written and one event for
    the whole entity, sent with the last batch."""
    if count:
        bulk.set(counter, last)
        queue_event(bulk, actor.event("created", APP, entity, first, f"{count} imported {entity}s"), keys.EVENTS)
    bulk.send()
    return count


def restore_products(products: Iterable[Product], *, actor: Actor) -> int:
    """Write exported products with their own ids and times, RESTORE_BATCH a script, and one
    event for the whole entity; the product counter is put at the highest id written.

    For an import into an empty catalog (the exchange runner clears it first, and again if
    anything fails): each product is written as ``create`` writes it, with no reviews yet
    (its aggregate empty, ``restore_reviews`` fills it), every index entry merged per key.
    """
    bulk, count, first, last = BulkWrite(), 0, 0, 0
    for product in products:
        first, last, count = first or product.id, max(last, product.id), count + 1
        queue_new_product(bulk, product, [], 0)
        if count % RESTORE_BATCH == 0:
            bulk.send()
    return _finish_restore(bulk, keys.product_ids(), "product", first, last, count, actor)


def restore_reviews(reviews: Iterable[tuple[int, int, NewReview]], *, actor: Actor) -> int:
    """Write exported reviews, (product id, review id, review), with their own ids and times.

    The review hashes and each product's review set go out RESTORE_REVIEWS a
    script (the review machinery's bulk writer); each product's aggregate and
    its 3 newest are kept meanwhile (a count, a sum and three copies a product),
    and written at the end with the rating and review-count sort indexes,
    RESTORE_BATCH products a script: exactly what one ``add_review`` per review
    would have left. One event for the whole entity; the review counter is put
    at the highest id written. The products must be written first.
    """
    totals: dict[int, list] = {}  # product id -> [count, sum, newest copies]
    pending: dict[int, list[Child]] = {}
    bulk, count, first, last = BulkWrite(), 0, 0, 0

    def write_pending():
        for product_id, children in pending.items():
            REVIEWS.queue_bulk(bulk, product_id, children)
        pending.clear()
        bulk.send()

    for product_id, review_id, review in reviews:
        first, last, count = first or review_id, max(last, review_id), count + 1
        fields = {"author": review.author, "rating": str(review.rating), "comment": review.comment}
        pending.setdefault(product_id, []).append(Child(review_id, fields, review.at))
        held = totals.setdefault(product_id, [0, 0, []])
        held[0] += 1
        held[1] += review.rating
        copy = {**fields, REVIEWS.parent_field: str(product_id), REVIEWS.time_field: repr(review.at)}
        held[2].append({"id": str(review_id), **{name: copy.get(name, "") for name in REVIEWS.embed_fields}})
        if len(held[2]) > REVIEWS.embed_size:
            held[2] = REVIEWS.newest(held[2])
        if count % RESTORE_REVIEWS == 0:
            write_pending()
    write_pending()
    for n, (product_id, (reviewed, total, newest)) in enumerate(totals.items(), start=1):
        derived = {REVIEWS.embed_field: json.dumps(REVIEWS.newest(newest)), REVIEWS.count_field: str(reviewed)}
        if REVIEWS.sum_field:
            derived[REVIEWS.sum_field] = str(total)
        bulk.hset(keys.product(product_id), mapping=derived)
        REVIEWS.queue_scores(bulk, product_id, reviewed, total)
        if n % RESTORE_BATCH == 0:
            bulk.send()
    return _finish_restore(bulk, keys.review_ids(), "review", first, last, count, actor)
