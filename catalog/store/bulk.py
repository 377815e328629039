"""Bulk writes for the seeder and the importer: whole products with their reviews, deeply pipelined."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from catalog import keys
from catalog.documents import Product, sku_key
from catalog.store import skus
from catalog.store.batch import Batch
from catalog.store.core import APP, REVIEWS, SkuTaken, queue_indexes
from config.activity import Actor
from config.redis import client
from config.store import batched, pipelined, queue_event
from config.store.bulk import BulkWrite
from config.store.children import Child
from config.store.scripts import outcome


@dataclass
class NewReview:
    author: str
    rating: int
    comment: str
    at: float


ENTITIES = ("product", "review")  # what the id counters count


def _counters() -> list[tuple[str, int]]:
    return [(entity, p) for entity in ENTITIES for p in keys.partitions()]


def counter_keys() -> list[str]:
    """Every id counter's key: one an entity and partition."""
    return [keys.ids(*counter) for counter in _counters()]


def _counts() -> dict[tuple[str, int], int]:
    """Every id counter's count, by (entity, partition): one pipeline of GETs."""
    counters = _counters()
    return {c: int(n or 0) for c, n in zip(counters, pipelined(counter_keys(), lambda pipe, key: pipe.get(key)))}


def last_ids() -> dict[str, int]:
    """The highest product id and review id handed out so far, in any partition (0 before the first)."""
    highest = dict.fromkeys(ENTITIES, 0)
    for (entity, p), count in _counts().items():
        if count:
            highest[entity] = max(highest[entity], keys.id_in(p, count))
    return highest


def raise_ids(highest: dict[str, int]) -> None:
    """Put every partition's counters where their next id passes the given highest id of each entity
    (an export's, of any partition count), never back: each at its last count whose id is not above
    it, so the highest id handed out reads back the same."""
    wanted = {}
    for (entity, p), count in _counts().items():
        need = (highest.get(entity, 0) - p) // keys.PARTITIONS
        if need > count:
            wanted[keys.ids(entity, p)] = need
    pipelined(wanted.items(), lambda pipe, item: pipe.set(*item))


@dataclass(frozen=True)
class Drawn:
    """The ids drawn for new products, item by item: each one's id and its reviews' ids."""

    product_ids: list[int]
    review_ids: list[list[int]]


def _by_partition_of_item(count: int) -> dict[int, list[int]]:
    """The items of a bulk write of ``count`` in each partition: item k in partition k mod PARTITIONS."""
    mine: dict[int, list[int]] = {}
    for k in range(count):
        mine.setdefault(k % keys.PARTITIONS, []).append(k)
    return mine


def _assigned(review_counts: list[int], mine: dict[int, list[int]], firsts: dict[int, tuple[int, int]]) -> Drawn:
    """Each item's ids, counting on from each partition's first product and review counts."""
    product_ids: list[int] = [0] * len(review_counts)
    review_ids: list[list[int]] = [[] for _ in review_counts]
    for p, items in mine.items():
        product, review = firsts[p]
        for k in items:
            product_ids[k] = keys.id_in(p, product)
            review_ids[k] = [keys.id_in(p, review + n) for n in range(review_counts[k])]
            product, review = product + 1, review + review_counts[k]
    return Drawn(product_ids, review_ids)


def reserve_ids(review_counts: list[int]) -> Drawn:
    """Ids for new products with ``review_counts[k]`` reviews each, one INCRBY a counter, one round
    trip: item k goes to partition k mod ``PARTITIONS``, so a batch spreads evenly."""
    mine = _by_partition_of_item(len(review_counts))
    pipe = client().pipeline(transaction=False)
    for p, items in mine.items():
        pipe.incrby(keys.product_ids(p), len(items))
        pipe.incrby(keys.review_ids(p), sum(review_counts[k] for k in items))
    replies = iter(pipe.execute())
    firsts = {}
    for p, items in mine.items():
        last_product, last_review = next(replies), next(replies)
        firsts[p] = (last_product - len(items) + 1, last_review - sum(review_counts[k] for k in items) + 1)
    return _assigned(review_counts, mine, firsts)


def ids_in_an_empty_catalog(review_counts: list[int]) -> Drawn:
    """The ids ``reserve_ids`` hands out in an empty catalog, worked out without Redis (for a relational
    copy of the same data to carry the same ids)."""
    return _assigned(review_counts, _by_partition_of_item(len(review_counts)), dict.fromkeys(keys.partitions(), (1, 1)))


def queue_new_product(pipe, product: Product, reviews: list[NewReview], review_ids: Sequence[int]) -> None:
    """Queue a product and its reviews, their ids reserved, on a pipeline or a ``Batch``: exactly what
    ``create`` and one ``add_review`` a review would write, so ``check_integrity`` holds after a seed."""
    product.rev = product.rev or 1
    children = [
        Child(review_id, {"author": r.author, "rating": str(r.rating), "comment": r.comment}, r.at)
        for review_id, r in zip(review_ids, reviews)
    ]
    derived = REVIEWS.queue_bulk(pipe, product.id, children)
    product.num_reviews = len(reviews)
    product.sum_ratings = sum(r.rating for r in reviews)
    pipe.hset(keys.product(product.id), mapping={**product.to_hash(), **derived})
    queue_indexes(pipe, product.id, None, product)


CLAIMS = 500  # SKUs one claim script takes at most


def _claim_all(owned: list[tuple[str, int]]) -> None:
    """With several partitions, claim every (SKU, product id) of a bulk write before it is written,
    CLAIMS a script; SkuTaken for one another product holds (the ones claimed before are released)."""
    if keys.SKUS_WITH_PRODUCTS:
        return
    for start in range(0, len(owned), CLAIMS):
        reply = skus.claim(owned[start : start + CLAIMS])
        if reply[0] != "ok":
            skus.release(owned[:start])
            outcome(reply, SkuTaken)


def _owned(products: Iterable[Product]) -> list[tuple[str, int]]:
    return [(sku_key(product.sku), product.id) for product in products if product.sku]


def _owned_as_drawn(items: list[tuple[Product, list]], drawn: Drawn) -> list[tuple[str, int]]:
    """(SKU, the id drawn for its product) of new products."""
    return [(sku_key(product.sku), drawn.product_ids[k]) for k, (product, _) in enumerate(items) if product.sku]


def _by_partition(items: list) -> dict[int, list[tuple[int, tuple]]]:
    """The items (with their place in ``items``) of each partition, as ``reserve_ids`` places them."""
    return {p: [(k, items[k]) for k in ks] for p, ks in _by_partition_of_item(len(items)).items()}


def import_products(items: list[tuple[Product, list[NewReview]]], *, actor: Actor, at: float) -> list[int]:
    """Write a whole import, whole or not at all: SkuTaken if another writer took one of its SKUs since
    the file was checked. The ids, then a checked script a partition (with several, the SKUs claimed
    first, and nothing left to refuse). Returns the ids in the order of ``items``."""
    drawn = reserve_ids([len(reviews) for _, reviews in items])
    _claim_all(_owned_as_drawn(items, drawn))
    for p, mine in _by_partition(items).items():
        batch = Batch()
        for _, (product, _reviews) in mine:
            if product.sku and keys.SKUS_WITH_PRODUCTS:
                batch.require_owner(keys.skus(), sku_key(product.sku))
        written = _queue_batch(batch, mine, drawn, at)
        label = f"{len(written)} imported products"
        queue_event(batch, actor.event("created", APP, "product", written[0], label), keys.events(p))
        outcome(batch.run(), SkuTaken)
    return drawn.product_ids


def write_batches(
    items: list[tuple[Product, list[NewReview]]], *, actor: Actor, at: float, batch: int = 200
) -> list[int]:
    """The seeder's writes: ids for all ``items`` in one round trip, then one script per ``batch``
    products of one partition with their reviews and an event. Returns the ids in ``items``' order."""
    drawn = reserve_ids([len(reviews) for _, reviews in items])
    _claim_all(_owned_as_drawn(items, drawn))
    for p, mine in _by_partition(items).items():
        for start in range(0, len(mine), batch):
            bulk = BulkWrite()
            written = _queue_batch(bulk, mine[start : start + batch], drawn, at)
            event = actor.event("created", APP, "product", written[0], f"{len(written)} seeded products")
            queue_event(bulk, event, keys.events(p))
            bulk.send()
    return drawn.product_ids


def _queue_batch(pipe, mine: list[tuple[int, tuple]], drawn: Drawn, at: float) -> list[int]:
    ids = []
    for k, (product, reviews) in mine:
        product.id = drawn.product_ids[k]
        product.created_at = product.created_at or at
        product.updated_at = product.updated_at or product.created_at
        queue_new_product(pipe, product, reviews, drawn.review_ids[k])
        ids.append(product.id)
    return ids


# --- restoring an export -------------------------------------------------------------------


RESTORE_BATCH = 500  # products, or products' review totals, a script
RESTORE_REVIEWS = 5000  # reviews a script


class _Restore:
    """An entity's restore: a bulk writer a partition (a script touches one partition's keys)."""

    def __init__(self, entity: str, counter: Callable[[int], str], every: int = 0):
        self.entity, self.counter, self.every = entity, counter, every
        self.writers: dict[int, BulkWrite] = {}
        self.written: dict[int, list[int]] = {}  # partition -> [count, first id, last id]

    def writer(self, record_id: int, owner_id: int | None = None) -> BulkWrite:
        """The writer of ``owner_id``'s partition (the record's own by default), counting ``record_id``."""
        p = keys.partition_of(record_id if owner_id is None else owner_id)
        held = self.written.setdefault(p, [0, record_id, record_id])
        held[0] += 1
        held[2] = max(held[2], record_id)
        bulk = self.writers.get(p) or self.writers.setdefault(p, BulkWrite())
        if self.every and held[0] % self.every == 0:
            bulk.send()
        return bulk

    def send(self) -> None:
        for bulk in self.writers.values():
            bulk.send()

    def finish(self, actor: Actor) -> int:
        """Each partition's id counter put at its highest id written, and one event; the count written."""
        for p, (count, first, last) in self.written.items():
            bulk = self.writers[p]
            bulk.set(self.counter(p), keys.count_of(last))
            event = actor.event("created", APP, self.entity, first, f"{count} imported {self.entity}s")
            queue_event(bulk, event, keys.events(p))
            bulk.send()
        return sum(count for count, _, _ in self.written.values())


def restore_products(products: Iterable[Product], *, actor: Actor) -> int:
    """Write exported products into an empty catalog (the exchange runner clears it) with their own ids
    and times, as ``create`` writes them, RESTORE_BATCH a script; their reviews come after."""
    restore = _Restore("product", keys.product_ids, RESTORE_BATCH)
    for chunk in batched(products, CLAIMS):
        _claim_all(_owned(chunk))  # before any of them is written, as every write claims first
        for product in chunk:
            queue_new_product(restore.writer(product.id), product, [], ())
    return restore.finish(actor)


def restore_reviews(reviews: Iterable[tuple[int, int, NewReview]], *, actor: Actor, exported: int = 0) -> int:
    """Write exported reviews, (product id, review id, review), with their own ids and times, after
    their products. A review exported with another partition count may not be in its product's
    partition: it gets a new id there, past ``exported`` (the export's highest review id).

    The reviews go out RESTORE_REVIEWS a script; each product's aggregate and 3 newest are kept
    meanwhile and written at the end, RESTORE_BATCH products a script: what one ``add_review`` a
    review would have left."""
    totals: dict[int, list] = {}  # product id -> [count, sum, newest copies]
    pending: dict[int, list[Child]] = {}
    restore = _Restore("review", keys.review_ids)  # sent by write_pending, RESTORE_REVIEWS reviews in all

    def write_pending():
        for product_id, children in pending.items():
            REVIEWS.queue_bulk(restore.writers[keys.partition_of(product_id)], product_id, children)
        pending.clear()
        restore.send()

    fresh = {p: exported // keys.PARTITIONS for p in keys.partitions()}  # counts past every exported id
    for count, (product_id, review_id, review) in enumerate(reviews, start=1):
        p = keys.partition_of(product_id)
        if keys.partition_of(review_id) != p:
            fresh[p] += 1
            review_id = keys.id_in(p, fresh[p])
        restore.writer(review_id, product_id)
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
        bulk = restore.writers[keys.partition_of(product_id)]
        bulk.hset(keys.product(product_id), mapping=derived)
        REVIEWS.queue_scores(bulk, product_id, reviewed, total)
        if n % RESTORE_BATCH == 0:
            restore.send()
    return restore.finish(actor)
