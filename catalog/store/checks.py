"""Integrity reads and repairs: SCAN/ZSCAN/SSCAN/HSCAN in batches, never KEYS."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from catalog import keys, types
from catalog.documents import Product, name_score, price_score, searched_text, sku_key, text_scores
from catalog.store.core import NAMES, REVIEWS, lex_member, products_by_id, queue_indexes
from catalog.store.gather import fields_of
from config.redis import client
from config.store import batched, pipelined, scan_ids
from config.store.children import average_score


def iter_product_ids() -> Iterator[int]:
    """Every product hash's id, by SCAN (never KEYS)."""
    return scan_ids(keys.product("*"))


def misplaced_products(batch: int = 1000) -> Iterator[str]:
    """Product hashes written with another partition count, which every read by id misses. By SCAN."""
    for key in client().scan_iter(match=keys.any_layout_product(), count=batch, _type="hash"):
        tail = key.rsplit(":", 1)[1]
        if tail.isdigit() and key != keys.product(tail):
            yield key


def iter_review_ids() -> Iterator[int]:
    return scan_ids(keys.review("*"))


def review_counts(product_ids: list[int]) -> dict[int, tuple[int, int]]:
    """(stored num_reviews, ZCARD of the review set) per existing product: one pipeline."""
    pipe = client().pipeline(transaction=False)
    for product_id in product_ids:
        pipe.hget(keys.product(product_id), "num_reviews")
        pipe.zcard(keys.product_reviews(product_id))
    replies = pipe.execute()
    pairs = zip(product_ids, replies[::2], replies[1::2])
    return {i: (int(stored), actual) for i, stored, actual in pairs if stored is not None}


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
    """The index entries every product should have (its partition's), read in one pipeline."""
    pipe = client().pipeline(transaction=False)
    for product in products:
        member, p = str(product.id), keys.partition_of(product.id)
        pipe.zscore(keys.products(p), member)
        for name in keys.SORTS:
            pipe.zscore(keys.sort_index(name, p), member)
        pipe.zscore(keys.names(p), lex_member(product))
        pipe.hget(keys.skus(), sku_key(product.sku))
        if product.type:  # a product of no type is in no type set
            pipe.sismember(keys.type_index(product.type, p), member)
        for tag in product.tags:
            pipe.sismember(keys.tag_index(tag, p), member)
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
            bool(next(replies)) if p.type else True,
            {tag: bool(next(replies)) for tag in p.tags},
        )
    return found


@dataclass(frozen=True)
class TypeEntry:
    """A product's type and creation time, and its score in each (partition, type)'s creation index."""

    type: str
    created_at: float
    scores: dict[tuple[int, str], float | None]


def type_entries(product_ids: list[int]) -> dict[int, TypeEntry]:
    """Each product's type and creation time, and its score in every type's creation index (an id held
    by another type's or partition's shows too). One pipeline."""
    pipe = client().pipeline(transaction=False)
    for product_id in product_ids:
        pipe.hmget(keys.product(product_id), ["type", "created_at"])
    members = [str(i) for i in product_ids]
    for p in keys.partitions():
        for slug in types.TYPES:
            pipe.zmscore(keys.type_created(slug, p), members)
    replies = pipe.execute()
    held = iter(replies[len(product_ids) :])
    by_partition = [dict(zip(types.TYPES, held)) for _ in keys.partitions()]
    found = {}
    for n, (product_id, (slug, created)) in enumerate(zip(product_ids, replies)):
        if slug is not None:
            scores = {(p, t): by_partition[p][t][n] for p in keys.partitions() for t in types.TYPES}
            found[product_id] = TypeEntry(slug, float(created or 0), scores)
    return found


def type_created_members(slug: str, p: int) -> Iterator[str]:
    """The ids one type's creation index in partition ``p`` holds, by ZSCAN."""
    return (member for member, _ in client().zscan_iter(keys.type_created(slug, p), count=1000))


def expected_scores(product: Product) -> dict[str, float]:
    return {
        "name": name_score(product.name),
        "price": price_score(product.price),
        "rating": average_score(product.num_reviews, product.sum_ratings),  # as the review scripts score it
        "reviews": float(product.num_reviews),
        **text_scores(product),
    }


@dataclass
class Held:
    """What the indexes hold for one product id (integrity's reverse check)."""

    types: set[str] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    names: int = 0
    skus: int = 0


def index_members() -> Iterator[tuple[int, str, str, str]]:
    """(partition, kind, value, product id) for every entry of every index, by ZSCAN/SSCAN/HSCAN: kind
    "sorted" (value: the index's key), "name", "sku" (partition -1: not a partition's), "type" or "tag"."""
    c = client()
    for p in keys.partitions():
        for key in (keys.products(p), *(keys.sort_index(n, p) for n in keys.SORTS)):
            for member, _ in c.zscan_iter(key, count=1000):
                yield p, "sorted", key, member
        for member, _ in c.zscan_iter(keys.names(p), count=1000):
            yield p, "name", "", member.rsplit("\x00", 1)[-1]
        type_prefix, tag_prefix = keys.type_index("", p), keys.tag_index("", p)
        for key in set_index_keys(p):
            kind, value = (
                ("type", key.removeprefix(type_prefix))
                if key.startswith(type_prefix)
                else ("tag", key.removeprefix(tag_prefix))
            )
            for member in c.sscan_iter(key, count=1000):
                yield p, kind, value, member
    for sku, owner in c.hscan_iter(keys.skus(), count=1000):
        yield -1, "sku", sku, owner


def set_index_keys(p: int) -> list[str]:
    """The type and tag sets of partition ``p`` present, by SCAN."""
    c = client()
    found = [keys.type_index(slug, p) for slug in types.TYPES]
    found += list(c.scan_iter(match=keys.tag_index("*", p), count=1000, _type="set"))
    return found


def tag_counts(p: int) -> tuple[dict[str, int], dict[str, int]]:
    """(score in partition ``p``'s tag cloud, SCARD of its tag set) for every tag either knows."""
    c = client()
    cloud = {tag: int(score) for tag, score in c.zscan_iter(keys.tags(p), count=1000)}
    prefix = keys.tag_index("", p)
    sets = [key for key in set_index_keys(p) if key.startswith(prefix)]
    pipe = c.pipeline(transaction=False)
    for key in sets:
        pipe.scard(key)
    sizes = {key.removeprefix(prefix): n for key, n in zip(sets, pipe.execute())}
    return cloud, sizes


def rebuild_indexes() -> None:
    """Rebuild every index from the product hashes: drop them all and re-add, one transaction a
    partition (the SKU index, in its own slot with several partitions, in one of its own)."""
    products = [p for chunk in batched(iter_product_ids()) for p in products_by_id(chunk).values()]
    by_partition: dict[int, list[Product]] = {p: [] for p in keys.partitions()}
    for product in products:
        by_partition[keys.partition_of(product.id)].append(product)
    if not keys.SKUS_WITH_PRODUCTS:
        pipe = client().pipeline(transaction=True)
        pipe.unlink(keys.skus())
        owned = {sku_key(product.sku): str(product.id) for product in products if product.sku}
        if owned:
            pipe.hset(keys.skus(), mapping=owned)
        pipe.execute()
    for p in keys.partitions():
        index_keys = [
            keys.products(p),
            keys.names(p),
            keys.tags(p),
            *(keys.sort_index(n, p) for n in keys.SORTS),
            *(keys.type_created(slug, p) for slug in types.TYPES),
            *set_index_keys(p),
            *NAMES[p].index_keys(),
        ]
        pipe = client().pipeline(transaction=True)
        pipe.unlink(*index_keys, *([keys.skus()] if p == 0 and keys.SKUS_WITH_PRODUCTS else []))
        for product in by_partition[p]:
            queue_indexes(pipe, product.id, None, product)
        pipe.execute()


def review_links(review_ids: list[int]) -> dict[int, tuple[str | None, bool]]:
    """For each review hash: its product field, and whether that product's set lists it."""
    owners = pipelined(review_ids, lambda pipe, review_id: pipe.hget(keys.review(review_id), "product"))
    pairs = zip(review_ids, owners)
    listed = pipelined(pairs, lambda pipe, pair: pipe.zscore(keys.product_reviews(pair[1] or "0"), str(pair[0])))
    return {i: (owner, score is not None) for i, owner, score in zip(review_ids, owners, listed)}


def review_sets() -> Iterator[tuple[int, list[str]]]:
    """(product id, review ids) for every review set, by SCAN then ZSCAN."""
    c = client()
    for key in c.scan_iter(match=keys.product_reviews("*"), count=1000, _type="zset"):
        product_id = key.split(":")[-2]  # …:product:<id>:reviews
        if product_id.isdigit():
            yield int(product_id), [member for member, _ in c.zscan_iter(key, count=1000)]


def missing_reviews(review_ids: list[str]) -> list[str]:
    found = pipelined(review_ids, lambda pipe, review_id: pipe.exists(keys.review(review_id)))
    return [i for i, there in zip(review_ids, found) if not there]


def drop_review_refs(product_id: int, review_ids: list[str]) -> None:
    """Repair: drop set members whose hash is gone, then rebuild the product's embed and aggregate."""
    if review_ids:
        client().zrem(keys.product_reviews(product_id), *review_ids)
    if client().exists(keys.product(product_id)):
        REVIEWS.repair(product_id)
    else:
        client().unlink(keys.product_reviews(product_id))


def drop_orphan_review(review_id: int) -> None:
    client().unlink(keys.review(review_id))


def product_names() -> dict[int, dict[str, str]]:
    """What the name index lists every product under (``searched_text``), by id, in each partition."""
    names: dict[int, dict[str, str]] = {p: {} for p in keys.partitions()}
    for chunk in batched(iter_product_ids()):
        for product_id, name, sku in fields_of(chunk, ("name", "sku")):
            if name is not None:
                names[keys.partition_of(product_id)][str(product_id)] = searched_text(name, sku)
    return names


def name_gram_drift() -> dict[int, tuple[dict[str, set[str]], dict[str, set[str]]]]:
    """(missing, extra) trigrams per product id, in each partition: its name index against the names."""
    return {p: NAMES[p].drift(names) for p, names in product_names().items()}


def vocabulary_drift() -> dict[int, tuple[set[str], set[str]]]:
    """(missing, extra) words of each partition's vocabulary against its names (ZSCAN, HGET)."""
    return {p: NAMES[p].vocabulary_drift(names.values()) for p, names in product_names().items()}


def rebuild_name_grams() -> None:
    """Rebuild the name index from the names, one transaction a partition."""
    for p, names in product_names().items():
        pipe = client().pipeline(transaction=True)
        NAMES[p].queue_rebuild(pipe, names.items(), NAMES[p].index_keys())
        pipe.execute()
