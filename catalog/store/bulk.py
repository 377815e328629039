"""Bulk writes for the seeder and the importer: whole products with their reviews, deeply pipelined."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from catalog import keys
from catalog.documents import Product, sku_key
from catalog.store.batch import Batch
from catalog.store.core import APP, REVIEWS, queue_indexes, refusal
from config.activity import Actor
from config.redis import client
from config.store import queue_event
from config.store.children import Child
from config.store.children_scripts import run_bulk_script
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
    queue_event(batch, actor.event("created", APP, "product", ids[0] if ids else 0, label))
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
    waits on Redis while this one joins strings), and an event per batch."""
    first_product, first_review = reserve_ids(len(items), sum(len(r) for _, r in items))
    ids: list[int] = []
    with Sender("catalog-bulk") as sender:
        for start in range(0, len(items), batch):
            chunk = items[start : start + batch]
            bulk = BulkWrite()
            written = _queue_batch(bulk, chunk, first_product + start, first_review, at)
            first_review += sum(len(r) for _, r in chunk)
            queue_event(bulk, actor.event("created", APP, "product", written[0], f"{len(written)} seeded products"))
            sender.send(bulk.send_later())
            ids += written
    return ids


# KEYS: the key of each command, in order. ARGV, command after command: its argument count,
# its name, its arguments; every argument a string (a score is never rounded on the way), no
# key name built here. Plain arguments rather than one JSON document: decoding JSON in Lua
# costs the server more than the commands themselves.
_BULK = """
local at = 1
for i = 1, #KEYS do
  local count = tonumber(ARGV[at])
  redis.call(ARGV[at + 1], KEYS[i], unpack(ARGV, at + 2, at + 1 + count))
  at = at + 2 + count
end
return #KEYS
"""


def _text(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _texts(values) -> list[str]:
    """``_text`` of each value, the strings (most scores a bulk writer hands over) passed as they are."""
    return [v if v.__class__ is str else repr(v) if v.__class__ is float else str(v) for v in values]


_COUNTS = [str(n) for n in range(1001)]  # a command's argument count as text, up to BulkWrite.CHUNK


class BulkWrite:
    """New records and their index entries, sent as one script of plain commands per ``send``.

    It takes a pipeline's signatures (``queue_indexes``, the review machinery's
    bulk writer and ``queue_event`` write to it as to a pipeline). New records
    only add to the indexes (members, fields, counts), and adds commute, so the
    additions to one key become one ZADD/SADD/HSET (and one ZINCRBY per tag)
    for the whole batch: exactly what one command per record would write, in
    far fewer commands. Whole hashes and stream entries are commands of their
    own. The script runs every command with its key from KEYS, atomically, in
    one round trip, whatever the batch's size; the client only lists strings.
    """

    CHUNK = 1000  # arguments a command at most (Lua's unpack takes a few thousand)

    def __init__(self):
        self.keys: list[str] = []
        self.args: list[str] = []
        self.zsets: dict[str, dict[str, float]] = {}
        self.sets: dict[str, set[str]] = {}
        self.fields: dict[str, dict[str, str]] = {}
        self.counts: dict[tuple[str, str], int] = {}

    def _op(self, command: str, key: str, args: list[str]) -> None:
        self.keys.append(key)
        self.args += (_COUNTS[len(args)], command)
        self.args += args

    def _ops(self, command: str, key: str, args: list[str]) -> None:
        if len(args) <= self.CHUNK:
            self._op(command, key, args)
            return
        for start in range(0, len(args), self.CHUNK):
            self._op(command, key, args[start : start + self.CHUNK])

    def zadd(self, key, mapping):
        held = self.zsets.get(key)  # not setdefault: that would build an empty dict on every call
        if held is None:
            self.zsets[key] = dict(mapping)
        else:
            held.update(mapping)

    def sadd(self, key, *members):
        held = self.sets.get(key)
        if held is None:
            self.sets[key] = set(members)
        else:
            held.update(members)

    def zincrby(self, key, amount, value):
        self.counts[(key, value)] = self.counts.get((key, value), 0) + amount

    def hset(self, key, field=None, value=None, mapping=None):
        """A whole hash (``mapping``) is written at once; single fields of one key are merged."""
        if mapping is None:
            self.fields.setdefault(key, {})[field] = _text(value)
        elif 2 * len(mapping) <= self.CHUNK:  # a record's hash: one command, its pairs added as they are
            self.keys.append(key)
            self.args += (_COUNTS[2 * len(mapping)], "HSET")
            self.args += chain.from_iterable(mapping.items())
        else:
            self._ops("HSET", key, [part for pair in mapping.items() for part in pair])

    def hset_many(self, hashes: Iterable[tuple[str, dict[str, str]]]) -> None:
        """``hset(key, mapping=fields)`` for each (key, fields): a bulk load's thousands of small hashes
        (a batch's reviews) in one call, each its own command."""
        keys, args, chunk = self.keys, self.args, self.CHUNK
        for key, fields in hashes:
            if 2 * len(fields) > chunk:
                self.hset(key, mapping=fields)
                continue
            keys.append(key)
            args += (_COUNTS[2 * len(fields)], "HSET")
            args += chain.from_iterable(fields.items())

    def set(self, key, value):
        self._op("SET", key, [_text(value)])

    def xadd(self, key, fields, maxlen=None, approximate=True):
        limit = ["MAXLEN", *(["~"] if approximate else []), str(maxlen)] if maxlen else []
        self._op("XADD", key, [*limit, "*", *(part for pair in fields.items() for part in map(str, pair))])

    def _flush(self) -> None:
        for key, scores in self.zsets.items():
            self._ops("ZADD", key, [*chain.from_iterable(zip(_texts(scores.values()), scores))])
        for key, members in self.sets.items():
            self._ops("SADD", key, sorted(members))
        for key, fields in self.fields.items():
            self._ops("HSET", key, [part for pair in fields.items() for part in pair])
        for (key, value), amount in self.counts.items():
            self._op("ZINCRBY", key, [str(amount), value])
        self.zsets, self.sets, self.fields, self.counts = {}, {}, {}, {}

    def prepared(self) -> tuple[list[str], list[str]]:
        """The script's keys and arguments for everything queued (no keys: nothing); empties it."""
        self._flush()
        keys, args = self.keys, self.args
        self.keys, self.args = [], []
        return keys, args

    def send(self) -> int:
        """Run everything queued as one script (one round trip); returns the commands it ran."""
        return self.send_later()()

    def send_later(self):
        """Everything queued, taken now, as a write to run later (on a ``Sender``'s thread):
        returns the commands it ran."""
        keys, args = self.prepared()
        return lambda: run_bulk_script(_BULK, keys, args) if keys else 0


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
        queue_event(bulk, actor.event("created", APP, entity, first, f"{count} imported {entity}s"))
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
