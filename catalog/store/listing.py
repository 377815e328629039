"""The product list: filters, sort and search computed inside Redis, one page in one transaction."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from catalog import keys, types
from catalog.documents import LIST_FIELDS, ProductRow, name_key, sku_key
from config.redis import client

SEARCH_LIMIT = 2000  # name-prefix matches taken into a search; more is not a useful search
TEMP_TTL = 60
TAG_CLOUD = 40


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


def _source(query: ProductQuery) -> tuple[str, bool]:
    """The sorted set the page is read from, and whether it already holds only the chosen type.

    Newest or oldest first with a type is that type's own creation index, so
    the type alone is a page read and the type set drops out of the algebra;
    every other order reads the shared sort index and intersects the type set.
    """
    column = query.order.lstrip("-")
    if column != "created":
        return keys.sort_index(column), False
    return (keys.type_created(query.type), True) if query.type else (keys.products(), False)


def list_products(query: ProductQuery) -> ProductList:
    """One page of products, sorted and filtered, in one transaction (a search adds one lookup).

    The filters are set algebra inside Redis: SUNIONSTORE of the any-of tags,
    SINTERSTORE of that with the type set, the all-of tag sets and the search
    hits, SDIFFSTORE of the none-of tags; then ZINTERSTORE with the sort index
    (weight 1, the set weight 0) orders the ids by the chosen column (with no
    positive filter, ZDIFFSTORE subtracts from the sort index directly). A type
    in the default order needs none of it: its own creation index is the
    source (``_source``), so a type alone is a plain page read.
    SORT ... BY nosort over the result keeps its order,
    applies the page as a range and joins each id to its list fields with GET
    product:*->field, and with a type to that type's own fields too. The
    temporary keys are random, expire in 60 seconds, and are deleted by the
    same transaction.
    """
    kind = types.TYPES.get(query.type) if query.type else None
    if query.type and kind is None:
        raise ValueError(f"unknown product type {query.type!r}")
    search, capped = _search_ids(query.q) if query.q else ([], False)
    source, typed = _source(query)
    positives = [keys.type_index(query.type)] if query.type and not typed else []
    nones = [keys.tag_index(t) for t in query.tags_none]
    pipe = client().pipeline(transaction=True)
    target, temps = source, []
    if positives or query.q or query.tags_all or query.tags_any or nones:
        token = secrets.token_hex(8)
        target = keys.temp(token)
        temps.append(target)
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
    own = kind.field_names if kind else ()
    gets = ["#", *(f"{keys.product('*')}->{name}" for name in (*LIST_FIELDS, *own))]
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
    rows = [ProductRow.from_values(flat[i], flat[i + 1 : i + width], own) for i in range(0, len(flat), width)]
    return ProductList(
        rows=[row for row in rows if row.name],
        total=total,
        catalog_size=catalog_size,
        tag_cloud=[(tag, int(score)) for tag, score in cloud],
        type_counts=dict(zip(types.TYPES, counts)),
        search_capped=capped,
    )
