"""The catalog's only code that talks to Redis.

Writes: a product and every index entry derived from it change in one
MULTI/EXEC (``_queue_indexes`` writes the difference between the old and the
new product), with WATCH where a read decides the write (SKU uniqueness, the
edit form's revision, the old type and tags a change must undo). Reviews go
through the shared ``ChildCollection``, whose ``on_change`` hook keeps the
rating and review-count sort indexes in the review's own transaction.

Reads: the list is one transaction whatever the filters (two with a search),
the detail page one HGETALL, a page of reviews one SORT ... GET.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import redis
from redis.client import Pipeline

from catalog import keys, types
from catalog.documents import (
    LIST_FIELDS,
    Product,
    ProductRow,
    Review,
    name_key,
    name_score,
    price_score,
    rating_score,
    sku_key,
)
from config.activity import Event
from config.redis import client
from config.store import queue_event
from config.store.children import ChildCollection, Conflict, NotFound

__all__ = ["NotFound", "Conflict", "SkuTaken", "EditConflict", "REVIEWS"]

WATCH_RETRIES = 50
SEARCH_LIMIT = 2000  # name-prefix matches taken into a search; more is not a useful search
TEMP_TTL = 60
TAG_CLOUD = 40
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


def _lex_member(product: Product) -> str:
    return f"{name_key(product.name)}\x00{product.id}"


def _queue_indexes(pipe, product_id: int, old: Product | None, new: Product | None) -> None:
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
            _queue_review_indexes(pipe, product_id, new.num_reviews, new.sum_ratings)
    old_lex, new_lex = old and _lex_member(old), new and _lex_member(new)
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
    if old_type != new_type:
        if old_type:
            pipe.srem(keys.type_index(old_type), member)
        if new_type:
            pipe.sadd(keys.type_index(new_type), member)
    old_tags, new_tags = set(old.tags if old else ()), set(new.tags if new else ())
    for tag in sorted(old_tags - new_tags):
        pipe.srem(keys.tag_index(tag), member)
        pipe.zincrby(keys.tags(), -1, tag)
    for tag in sorted(new_tags - old_tags):
        pipe.sadd(keys.tag_index(tag), member)
        pipe.zincrby(keys.tags(), 1, tag)
    if old_tags - new_tags:
        pipe.zremrangebyscore(keys.tags(), "-inf", 0)


def _queue_review_indexes(pipe, product_id: int, count: int, total: int) -> None:
    """REVIEWS' on_change hook: the sort indexes that derive from the aggregate."""
    pipe.zadd(keys.sort_index("rating"), {str(product_id): rating_score(count, total)})
    pipe.zadd(keys.sort_index("reviews"), {str(product_id): count})


def _owner_of(pipe, sku: str) -> int | None:
    owner = pipe.hget(keys.skus(), sku_key(sku))
    return int(owner) if owner else None


# --- products: writes ------------------------------------------------------------


def new_product_id() -> int:
    """The id for the next product (INCR), taken before ``create`` so its event can link to it."""
    return client().incr(keys.product_ids())


def _transact(watched: tuple[str, ...], write: Callable[[Pipeline], T]) -> T:
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


def create(product_id: int, product: Product, event: Event, at: float | None = None) -> int:
    """Store a new product with its indexes and its empty review aggregate; returns its id."""
    product.id = product_id
    product.created_at = product.updated_at = time.time() if at is None else at
    product.rev, product.num_reviews, product.sum_ratings = 1, 0, 0

    def write(pipe) -> int:
        owner = _owner_of(pipe, product.sku)
        if owner is not None:
            raise SkuTaken(product.sku, owner)
        pipe.multi()
        pipe.hset(keys.product(product.id), mapping={**product.to_hash(), **REVIEWS.initial_fields()})
        _queue_indexes(pipe, product.id, None, product)
        queue_event(pipe, event)
        return product.id

    return _transact((keys.skus(),), write)


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
            owner = _owner_of(pipe, product.sku)
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
        _queue_indexes(pipe, product_id, old, product)
        queue_event(pipe, event)
        return product

    return _transact((key,), write)


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
        _queue_indexes(pipe, product_id, old, None)
        queue_event(pipe, event)
        return old

    return _transact((key, reviews_key), write)


def _event(event: Event, object_id: int, label: str) -> Event:
    """A batch's event, named after its first product."""
    return Event(**{**event.fields(), "object_id": str(object_id), "label": label})


# --- products: reads -------------------------------------------------------------


def get(product_id: int) -> Product | None:
    """The whole product, details, embedded reviews and aggregate included: one HGETALL.

    The hash is bounded (≤10 images, ≤3 videos, 3 embedded reviews), so
    HGETALL is the e-book's "one read for the whole page".
    """
    data = client().hgetall(keys.product(product_id))
    return Product.from_hash(product_id, data) if data else None


def sku_owner(sku: str) -> int | None:
    return _owner_of(client(), sku)


@dataclass(frozen=True)
class ProductQuery:
    q: str = ""
    order: str = "-created"
    type: str = ""
    tags_all: tuple[str, ...] = ()
    tags_any: tuple[str, ...] = ()
    tags_none: tuple[str, ...] = ()
    offset: int = 0
    limit: int = 25

    @property
    def filtered(self) -> bool:
        return bool(self.q or self.type or self.tags_all or self.tags_any or self.tags_none)


@dataclass(frozen=True)
class ProductList:
    rows: list[ProductRow]
    total: int
    catalog_size: int
    tag_cloud: list[tuple[str, int]] = field(default_factory=list)
    type_counts: dict[str, int] = field(default_factory=dict)
    search_capped: bool = False


def _search_ids(q: str) -> tuple[list[str], bool]:
    """Ids whose name starts with ``q`` (case-insensitive) or whose SKU is ``q``: one round trip."""
    prefix = name_key(q).encode()
    pipe = client().pipeline(transaction=False)
    pipe.zrangebylex(keys.names(), b"[" + prefix, b"[" + prefix + b"\xff", 0, SEARCH_LIMIT + 1)
    pipe.hget(keys.skus(), sku_key(q))
    members, by_sku = pipe.execute()
    ids = [m.rsplit("\x00", 1)[1] for m in members[:SEARCH_LIMIT]]
    if by_sku:
        ids.append(by_sku)
    return ids, len(members) > SEARCH_LIMIT


def list_products(query: ProductQuery) -> ProductList:
    """One page of products, sorted and filtered, in one transaction (a search adds one lookup).

    The filters are set algebra inside Redis: SUNIONSTORE of the any-of tags,
    SINTERSTORE of that with the type set, the all-of tag sets and the search
    hits, SDIFFSTORE of the none-of tags; then ZINTERSTORE with the sort index
    (weight 1, the set weight 0) orders the ids by the chosen column (with no
    positive filter, ZDIFFSTORE subtracts from the sort index directly).
    SORT ... BY nosort over the result keeps its order,
    applies the page as a range and joins each id to its list fields with GET
    product:*->field. The temporary keys are random, expire in 60 seconds, and
    are deleted by the same transaction.
    """
    search, capped = _search_ids(query.q) if query.q else ([], False)
    source = keys.products() if query.order.lstrip("-") == "created" else keys.sort_index(query.order.lstrip("-"))
    pipe = client().pipeline(transaction=True)
    target, temps = source, []
    if query.filtered:
        token = secrets.token_hex(8)
        target = keys.temp(token)
        temps.append(target)
        positives = [keys.type_index(query.type)] if query.type else []
        positives += [keys.tag_index(t) for t in query.tags_all]
        if query.tags_any:
            union = keys.temp_set(token, "any")
            temps.append(union)
            pipe.sunionstore(union, [keys.tag_index(t) for t in query.tags_any])
            positives.append(union)
        if query.q:
            found = keys.temp_set(token, "q")  # left absent when nothing matched: the intersection is empty
            temps.append(found)
            if search:
                pipe.sadd(found, *search)
            positives.append(found)
        nones = [keys.tag_index(t) for t in query.tags_none]
        if positives:
            base = positives[0]
            if len(positives) > 1 or nones:
                base = keys.temp_set(token, "ids")
                temps.append(base)
                if len(positives) > 1:
                    pipe.sinterstore(base, positives)
                    positives = [base]
                if nones:
                    pipe.sdiffstore(base, [positives[0], *nones])
            pipe.zinterstore(target, {source: 1, base: 0}, aggregate="SUM")
        else:
            pipe.zdiffstore(target, [source, *nones])
        for temp in temps:
            pipe.expire(temp, TEMP_TTL)
    page_at = len(pipe.command_stack)
    pipe.zcard(target)
    gets = ["#", *(f"{keys.product('*')}->{name}" for name in LIST_FIELDS)]
    pipe.sort(target, start=query.offset, num=query.limit, by="nosort", get=gets, desc=query.order.startswith("-"))
    if temps:
        pipe.unlink(*temps)
    tail_at = len(pipe.command_stack)
    pipe.zcard(keys.products())
    pipe.zrevrange(keys.tags(), 0, TAG_CLOUD - 1, withscores=True)
    for slug in types.TYPES:
        pipe.scard(keys.type_index(slug))
    replies = pipe.execute()
    total, flat = replies[page_at], replies[page_at + 1]
    catalog_size, cloud, *counts = replies[tail_at:]
    width = len(gets)
    rows = [ProductRow.from_values(flat[i], flat[i + 1 : i + width]) for i in range(0, len(flat), width)]
    return ProductList(
        rows=[row for row in rows if row.name],
        total=total,
        catalog_size=catalog_size,
        tag_cloud=[(tag, int(score)) for tag, score in cloud],
        type_counts=dict(zip(types.TYPES, counts)),
        search_capped=capped,
    )


# --- reviews ---------------------------------------------------------------------


def add_review(product_id: int, author: str, rating: int, comment: str, event: Event, at: float | None = None) -> int:
    """Add a review: its hash, the set, the embed, the aggregate and the sort indexes in one MULTI/EXEC."""
    fields = {"author": author, "rating": str(rating), "comment": comment}
    at = time.time() if at is None else at
    # ChildCollection.add takes the review id before it finds the product missing; checking first keeps an
    # unknown product id from touching the id counter (see /work/patches/catalog-children.diff).
    if not client().exists(keys.product(product_id)):
        raise NotFound(keys.product(product_id))
    return REVIEWS.add(product_id, fields, at, event=event, on_change=_queue_review_indexes)


def review_product(review_id: int) -> int | None:
    """The product a review belongs to, or None when there is no such review."""
    product = client().hget(keys.review(review_id), "product")
    return int(product) if product else None


def delete_review(review_id: int, event: Event) -> dict[str, str]:
    """Delete a review; refills the embed from the set when it was one of the three newest."""
    return REVIEWS.delete(review_id, event=event, on_change=_queue_review_indexes)


def get_review(review_id: int) -> Review | None:
    data = client().hgetall(keys.review(review_id))
    return Review.from_fields({**data, "id": str(review_id)}) if data else None


@dataclass(frozen=True)
class ReviewPage:
    product_name: str
    reviews: list[Review]
    total: int


def review_page(product_id: int, offset: int, limit: int) -> ReviewPage | None:
    """A page of a product's reviews, newest first, and the product's name: one round trip."""
    pipe = client().pipeline(transaction=False)
    pipe.hget(keys.product(product_id), "name")
    REVIEWS.queue_page(pipe, product_id, offset, limit)
    name, *replies = pipe.execute()
    if name is None:
        return None
    rows, total = REVIEWS.page_from(replies)
    return ReviewPage(name, [Review.from_fields(row, product_id) for row in rows], total)


# --- bulk writes: seeder and importer ---------------------------------------------------


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
    embed = REVIEWS._newest(copies)
    derived = {
        REVIEWS.embed_field: json.dumps(embed),
        REVIEWS.count_field: str(product.num_reviews),
        REVIEWS.sum_field: str(product.sum_ratings),
    }
    pipe.hset(keys.product(product.id), mapping={**product.to_hash(), **derived})
    _queue_indexes(pipe, product.id, None, product)


def skus_taken(skus: Iterable[str]) -> dict[str, int]:
    """Which of these SKUs the catalog already holds, with their owners: one HMGET."""
    wanted = [sku_key(s) for s in skus]
    if not wanted:
        return {}
    owners = client().hmget(keys.skus(), wanted)
    return {sku: int(owner) for sku, owner in zip(wanted, owners) if owner}


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
        queue_event(pipe, _event(event, ids[0] if ids else 0, f"{len(ids)} imported products"))
        return ids

    return _transact((keys.skus(),), write)


def write_batch(items: list[tuple[Product, list[NewReview]]], event: Event, at: float) -> list[int]:
    """The seeder's batch: reserve ids, write everything in one MULTI/EXEC."""
    first_product, first_review = reserve_ids(len(items), sum(len(r) for _, r in items))
    pipe = client().pipeline(transaction=True)
    ids = _queue_batch(pipe, items, first_product, first_review, at)
    queue_event(pipe, _event(event, ids[0], f"{len(ids)} seeded products"))
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


# --- integrity: reads and repairs --------------------------------------------------------


def iter_product_ids(batch: int = 1000) -> Iterator[int]:
    """Every product hash's id, by SCAN (never KEYS)."""
    for key in client().scan_iter(match=keys.product("*"), count=batch, _type="hash"):
        tail = key.rsplit(":", 1)[1]
        if tail.isdigit():
            yield int(tail)


def iter_review_ids(batch: int = 1000) -> Iterator[int]:
    for key in client().scan_iter(match=keys.review("*"), count=batch, _type="hash"):
        tail = key.rsplit(":", 1)[1]
        if tail.isdigit():
            yield int(tail)


def chunks(items: Iterable, size: int = 500) -> Iterator[list]:
    chunk = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def review_counts(product_ids: list[int]) -> dict[int, tuple[int, int]]:
    """(stored num_reviews, ZCARD of the review set) per existing product: one pipeline."""
    pipe = client().pipeline(transaction=False)
    for product_id in product_ids:
        pipe.hget(keys.product(product_id), "num_reviews")
        pipe.zcard(keys.product_reviews(product_id))
    replies = pipe.execute()
    pairs = zip(product_ids, replies[::2], replies[1::2])
    return {i: (int(stored), actual) for i, stored, actual in pairs if stored is not None}


def products_by_id(ids: list[int]) -> dict[int, Product]:
    pipe = client().pipeline(transaction=False)
    for product_id in ids:
        pipe.hgetall(keys.product(product_id))
    return {i: Product.from_hash(i, data) for i, data in zip(ids, pipe.execute()) if data}


@dataclass(frozen=True)
class IndexEntries:
    """What the indexes hold for one product id."""

    created: float | None
    scores: dict[str, float | None]
    lex: float | None
    sku_owner: str | None
    in_type: bool
    tags: dict[str, bool]


def index_entries(products: list[Product]) -> dict[int, IndexEntries]:
    """The index entries every product should have, read in one pipeline."""
    pipe = client().pipeline(transaction=False)
    for p in products:
        member = str(p.id)
        pipe.zscore(keys.products(), member)
        for name in keys.SORTS:
            pipe.zscore(keys.sort_index(name), member)
        pipe.zscore(keys.names(), _lex_member(p))
        pipe.hget(keys.skus(), sku_key(p.sku))
        pipe.sismember(keys.type_index(p.type), member)
        for tag in p.tags:
            pipe.sismember(keys.tag_index(tag), member)
    replies = iter(pipe.execute())
    found = {}
    for p in products:
        created = next(replies)
        scores = {name: next(replies) for name in keys.SORTS}
        found[p.id] = IndexEntries(
            created,
            scores,
            next(replies),
            next(replies),
            bool(next(replies)),
            {tag: bool(next(replies)) for tag in p.tags},
        )
    return found


def expected_scores(product: Product) -> dict[str, float]:
    return {
        "name": name_score(product.name),
        "price": price_score(product.price),
        "rating": rating_score(product.num_reviews, product.sum_ratings),
        "reviews": float(product.num_reviews),
    }


@dataclass
class Held:
    """What the indexes hold for one product id (integrity's reverse check)."""

    types: set[str] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    names: int = 0
    skus: int = 0


def index_members() -> Iterator[tuple[str, str, str]]:
    """(kind, value, product id) for every entry of every index, by ZSCAN/SSCAN/HSCAN.

    kind is "sorted" (value: the sorted index's key), "name", "sku", "type" or "tag" (value: the slug).
    """
    c = client()
    for key in (keys.products(), *(keys.sort_index(n) for n in keys.SORTS)):
        for member, _ in c.zscan_iter(key, count=1000):
            yield "sorted", key, member
    for member, _ in c.zscan_iter(keys.names(), count=1000):
        yield "name", "", member.rsplit("\x00", 1)[-1]
    for sku, owner in c.hscan_iter(keys.skus(), count=1000):
        yield "sku", sku, owner
    type_prefix, tag_prefix = keys.type_index(""), keys.tag_index("")
    for key in set_index_keys():
        kind, value = (
            ("type", key.removeprefix(type_prefix))
            if key.startswith(type_prefix)
            else ("tag", key.removeprefix(tag_prefix))
        )
        for member in c.sscan_iter(key, count=1000):
            yield kind, value, member


def set_index_keys() -> list[str]:
    """The type and tag sets present, by SCAN."""
    c = client()
    found = [keys.type_index(slug) for slug in types.TYPES]
    found += list(c.scan_iter(match=keys.tag_index("*"), count=1000, _type="set"))
    return found


def tag_counts() -> tuple[dict[str, int], dict[str, int]]:
    """(score in the tag cloud, SCARD of the tag set) for every tag either knows."""
    c = client()
    cloud = {tag: int(score) for tag, score in c.zscan_iter(keys.tags(), count=1000)}
    sets = [key for key in set_index_keys() if key.startswith(keys.tag_index(""))]
    pipe = c.pipeline(transaction=False)
    for key in sets:
        pipe.scard(key)
    sizes = {key.removeprefix(keys.tag_index("")): n for key, n in zip(sets, pipe.execute())}
    return cloud, sizes


def rebuild_indexes() -> None:
    """Rebuild every index from the product hashes: drop them all, re-add, in one transaction."""
    index_keys = [
        keys.products(),
        keys.names(),
        keys.skus(),
        keys.tags(),
        *(keys.sort_index(n) for n in keys.SORTS),
        *set_index_keys(),
    ]
    products = [p for chunk in chunks(iter_product_ids()) for p in products_by_id(chunk).values()]
    pipe = client().pipeline(transaction=True)
    pipe.unlink(*index_keys)
    for product in products:
        _queue_indexes(pipe, product.id, None, product)
    pipe.execute()


def review_links(review_ids: list[int]) -> dict[int, tuple[str | None, bool]]:
    """For each review hash: its product field, and whether that product's set lists it."""
    c = client()
    pipe = c.pipeline(transaction=False)
    for review_id in review_ids:
        pipe.hget(keys.review(review_id), "product")
    owners = pipe.execute()
    pipe = c.pipeline(transaction=False)
    for review_id, owner in zip(review_ids, owners):
        pipe.zscore(keys.product_reviews(owner or "0"), str(review_id))
    listed = pipe.execute()
    return {i: (owner, score is not None) for i, owner, score in zip(review_ids, owners, listed)}


def review_sets() -> Iterator[tuple[int, list[str]]]:
    """(product id, review ids) for every review set, by SCAN then ZSCAN."""
    c = client()
    for key in c.scan_iter(match=keys.product_reviews("*"), count=1000, _type="zset"):
        product_id = key.split(":")[2]
        if product_id.isdigit():
            yield int(product_id), [member for member, _ in c.zscan_iter(key, count=1000)]


def missing_reviews(review_ids: list[str]) -> list[str]:
    pipe = client().pipeline(transaction=False)
    for review_id in review_ids:
        pipe.exists(keys.review(review_id))
    return [i for i, there in zip(review_ids, pipe.execute()) if not there]


def drop_review_refs(product_id: int, review_ids: list[str]) -> None:
    """Repair: drop set members whose hash is gone, then rebuild the product's embed and aggregate."""
    if review_ids:
        client().zrem(keys.product_reviews(product_id), *review_ids)
    if client().exists(keys.product(product_id)):
        repair_reviews(product_id)
    else:
        client().unlink(keys.product_reviews(product_id))


def drop_orphan_review(review_id: int) -> None:
    client().unlink(keys.review(review_id))


def repair_reviews(product_id: int) -> None:
    """Rebuild the embed and the aggregate from the reviews, and the sort indexes from the aggregate."""
    REVIEWS.repair(product_id)
    count, total = client().hmget(keys.product(product_id), ["num_reviews", "sum_ratings"])
    pipe = client().pipeline(transaction=True)
    _queue_review_indexes(pipe, product_id, int(count or 0), int(total or 0))
    pipe.execute()
