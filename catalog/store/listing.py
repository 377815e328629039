"""The product list: filters, sort and search computed inside Redis, one page in one transaction."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from catalog import keys, types
from catalog.documents import LIST_FIELDS, ProductRow, name_key, sku_key
from catalog.store.core import NAMES
from config.redis import client
from config.store.ngrams import Query
from config.store.scripts import run_script
from config.store.sorting import SORT_LUA, queue_sort

SEARCH_LIMIT = 2000  # name matches taken into a search; more is not a useful search
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
    live_counts: bool = False  # chips count the filtered list (the screen's choice) rather than the catalog


@dataclass(frozen=True)
class ProductList:
    rows: list[ProductRow]
    total: int
    catalog_size: int
    tag_cloud: list[tuple[str, int]] = field(default_factory=list)
    type_counts: dict[str, int] = field(default_factory=dict)
    search_capped: bool = False


def _queue_search(pipe, q: str):
    """Queue the search's reads on ``pipe``; returns what turns their replies into (ids, capped).

    Any part of a name (three characters or more: the trigram index, ``NAMES``),
    or, when every word is shorter, names starting with ``q`` (the lexicographic
    index, the better tool for a prefix); and always an exact SKU (the SKU hash).
    """
    query = Query.parse(q)
    start = len(pipe.command_stack)
    if query.usable:
        read_names = NAMES.queue_search(pipe, query, SEARCH_LIMIT)
    else:
        prefix = name_key(q).encode()
        pipe.zrangebylex(keys.names(), b"[" + prefix, b"[" + prefix + b"\xff", 0, SEARCH_LIMIT + 1)
    pipe.hget(keys.skus(), sku_key(q))
    count = len(pipe.command_stack) - start

    def read(replies: list) -> tuple[list[str], bool]:
        own, by_sku = replies[:count], replies[count - 1]
        if query.usable:
            hits = read_names(own)
            ids, capped = hits.ids, hits.capped
        else:
            members = own[0]
            ids, capped = [m.rsplit("\x00", 1)[1] for m in members[:SEARCH_LIMIT]], len(members) > SEARCH_LIMIT
        return ids + ([by_sku] if by_sku else []), capped

    return read


def _prefetch(query: ProductQuery, count_tags: bool) -> tuple[list[str], bool, list[str]]:
    """The round trip before the list's transaction, when it needs one: the search hits, and the
    tag cloud's names when a filter is on (their counts follow the filter, so the transaction
    must know which tags to count). Returns (search ids, capped, tags to count)."""
    pipe = client().pipeline(transaction=bool(query.q))  # a search's scratch keys go in the same MULTI
    read_search = _queue_search(pipe, query.q) if query.q else None
    searched = len(pipe.command_stack)
    if count_tags:
        pipe.zrevrange(keys.tags(), 0, TAG_CLOUD - 1)
    replies = pipe.execute()
    ids, capped = read_search(replies[:searched]) if read_search else ([], False)
    return ids, capped, replies[searched] if count_tags else []


# A page read from one sorted set, with no set algebra: the total, the page joined to its fields
# (SORT ... BY nosort keeps the sorted set's order and applies the page as a range), the catalog's
# size, the tag cloud and each type's count. One EVALSHA instead of a MULTI of eleven commands:
# the client packs one command and parses one reply (a quarter less of the web process's CPU, which
# is what a page costs beyond its round trip); the server runs the same reads, and copying the page
# through Lua costs it about what the client saves, so the round trip's own time stays the same.
# KEYS: the source, every product's index, the tag cloud, then each type's set.
# ARGV: offset, count, ASC or DESC, the tag cloud's size, then the GET patterns.
_PAGE = (
    SORT_LUA
    + """
local options = {'BY', 'nosort', 'LIMIT', ARGV[1], ARGV[2], ARGV[3]}
for i = 5, #ARGV do
  options[#options + 1] = 'GET'
  options[#options + 1] = ARGV[i]
end
local reply = {redis.call('ZCARD', KEYS[1]), sort(KEYS[1], unpack(options)), redis.call('ZCARD', KEYS[2])}
reply[4] = redis.call('ZREVRANGE', KEYS[3], 0, tonumber(ARGV[4]) - 1, 'WITHSCORES')
for i = 4, #KEYS do reply[#reply + 1] = redis.call('SCARD', KEYS[i]) end
return reply
"""
)


def _source_of(order: str, type_slug: str) -> tuple[str, bool]:
    """The sorted set a page in ``order`` is read from, and whether it already holds only the type.

    Newest or oldest first with a type is that type's own creation index, so
    the type alone is a page read and the type set drops out of the algebra;
    every other order reads the shared sort index and intersects the type set.
    """
    column = order.lstrip("-")
    if column != "created":
        return keys.sort_index(column), False
    return (keys.type_created(type_slug), True) if type_slug else (keys.products(), False)


def product_page(
    fields: tuple[str, ...], order: str = "-created", type: str = "", offset: int = 0, limit: int = 25
) -> tuple[int, list[list[str | None]]]:
    """The total and one page of ``[id, *fields]`` rows (None for an absent field): ZCARD and SORT ... GET
    in one pipeline, one round trip.

    The lean read for a caller that wants a few fields of a page and nothing
    else (no chips, no row objects): the whole catalog or one type's products,
    in any list order, with no other filter. ``fields`` are product hash
    fields (``LIST_FIELDS`` or a type's own), never user input. Not a
    transaction, like SQL's COUNT and SELECT in autocommit: a write landing
    between the two replies can make the total and the page disagree by it,
    and MULTI/EXEC would cost two commands more. Not a script either: Lua
    copies every value of the page into a table and back, which costs the
    server more than the client saves.
    """
    if type and types.TYPES.get(type) is None:
        raise ValueError(f"unknown product type {type!r}")
    source, typed = _source_of(order, type)
    if type and not typed:
        raise ValueError("a type with an order other than creation needs the list's set algebra")
    gets = ["#", *(f"{keys.product('*')}->{name}" for name in fields)]
    pipe = client().pipeline(transaction=False)
    pipe.zcard(source)
    queue_sort(pipe, source, start=offset, num=limit, by_nosort=True, get=gets, desc=order.startswith("-"))
    total, flat = pipe.execute()
    width = len(gets)
    return total, [flat[i : i + width] for i in range(0, len(flat), width)]


def _plain_page(query: ProductQuery, source: str, own: tuple[str, ...]) -> ProductList:
    """A query with no filter to compute, its chips counting the whole catalog: one script (``_PAGE``)."""
    script_keys = [source, keys.products(), keys.tags(), *(keys.type_index(slug) for slug in types.TYPES)]
    gets = ["#", *(f"{keys.product('*')}->{name}" for name in (*LIST_FIELDS, *own))]
    direction = "DESC" if query.order.startswith("-") else "ASC"
    reply = run_script(_PAGE, script_keys, [query.offset, query.limit, direction, TAG_CLOUD, *gets])
    total, flat, catalog_size, pairs, counts = reply[0], reply[1], reply[2], reply[3], reply[4:]
    width = len(LIST_FIELDS) + len(own) + 1
    rows = [ProductRow.from_values(flat[i], flat[i + 1 : i + width], own) for i in range(0, len(flat), width)]
    return ProductList(
        rows=[row for row in rows if row.name],
        total=total,
        catalog_size=catalog_size,
        tag_cloud=[(pairs[i], int(float(pairs[i + 1]))) for i in range(0, len(pairs), 2)],
        type_counts=dict(zip(types.TYPES, counts)),
    )


def list_products(query: ProductQuery) -> ProductList:
    """One page of products, sorted and filtered, in one round trip (a search or live counts add one).

    With nothing to compute (no search, no tag, a type only in the creation
    order) the page and its chips are one script (``_PAGE``); otherwise one
    transaction:

    The filters are set algebra inside Redis: SUNIONSTORE of the any-of tags,
    SINTERSTORE of that with the type set, the all-of tag sets and the search
    hits, SDIFFSTORE of the none-of tags; then ZINTERSTORE with the sort index
    (weight 1, the set weight 0) orders the ids by the chosen column (with no
    positive filter, ZDIFFSTORE subtracts from the sort index directly). A type
    in the default order needs none of it: its own creation index is the
    source (``_source_of``), so a type alone is a plain page read.
    SORT ... BY nosort over the result keeps its order,
    applies the page as a range and joins each id to its list fields with GET
    product:*->field, and with a type to that type's own fields too. The
    temporary keys are random, expire in 60 seconds, and are deleted by the
    same transaction.

    Live counts: with no filter the type and tag chips count the whole catalog
    (SCARD, the tag cloud's scores), read in the same transaction, as they do
    without ``live_counts``. With a filter and ``live_counts`` (the list
    screen asks for them) they count the filtered list: one ZINTERSTORE of the result with
    each type and tag set into a scratch key, whose reply is the count, in the
    same transaction (each costs the smaller of the two; with a type chosen the
    type counts need none: that type's is the total, the others' 0); the tag
    names to count (the tag cloud's top 40) are read in the round trip before
    it, with the search when there is one.
    """
    kind = types.TYPES.get(query.type) if query.type else None
    if query.type and kind is None:
        raise ValueError(f"unknown product type {query.type!r}")
    filtered = query.live_counts and bool(query.q or query.type or query.tags_all or query.tags_any or query.tags_none)
    source, typed = _source_of(query.order, query.type)
    if not filtered and not (
        query.q or query.tags_all or query.tags_any or query.tags_none or (query.type and not typed)
    ):
        return _plain_page(query, source, kind.field_names if kind else ())
    if filtered or query.q:
        search, capped, counted_tags = _prefetch(query, count_tags=filtered)
    else:
        search, capped, counted_tags = [], False, []
    counted_tags = list(dict.fromkeys([*counted_tags, *query.tags_all]))  # a chosen tag is always shown
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
    queue_sort(
        pipe, target, start=query.offset, num=query.limit, by_nosort=True, get=gets, desc=query.order.startswith("-")
    )
    counts_at = len(pipe.command_stack)
    if filtered:
        scratch = keys.temp(secrets.token_hex(8))
        counted_types = [] if query.type else list(types.TYPES)  # with a type chosen the others count 0
        for key in [*(keys.tag_index(t) for t in counted_tags), *(keys.type_index(slug) for slug in counted_types)]:
            pipe.zinterstore(scratch, {target: 0, key: 0})  # its reply: how many of the list are in the set
        pipe.expire(scratch, TEMP_TTL)
        temps.append(scratch)
    if temps:
        pipe.unlink(*temps)
    tail_at = len(pipe.command_stack)
    pipe.zcard(keys.products())
    if not filtered:
        pipe.zrevrange(keys.tags(), 0, TAG_CLOUD - 1, withscores=True)
        for slug in types.TYPES:
            pipe.scard(keys.type_index(slug))
    replies = pipe.execute()
    total, flat = replies[page_at], replies[page_at + 1]
    catalog_size = replies[tail_at]
    if filtered:
        tallies = replies[counts_at : counts_at + len(counted_tags) + len(counted_types)]
        chosen = set(query.tags_all)
        cloud = sorted(
            ((t, n) for t, n in zip(counted_tags, tallies) if n or t in chosen), key=lambda pair: (-pair[1], pair[0])
        )
        counts = tallies[len(counted_tags) :] or [total if slug == query.type else 0 for slug in types.TYPES]
    else:
        cloud, counts = replies[tail_at + 1], replies[tail_at + 2 :]
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


def suggest(text: str, limit: int = 8) -> list[tuple[str, str]]:
    """Up to ``limit`` (id, name) pairs whose name holds ``text``, ordered by name: one round trip
    (the trigram index, ``NAMES.search``). Text with no word of three characters suggests nothing:
    the caller asks for more (a prefix of one or two letters would match too much to be a hint)."""
    return NAMES.search(text, limit).items if Query.parse(text).usable else []


def product_labels(product_ids: list[int]) -> list[tuple[int, str]]:
    """(id, name) of each product that exists, in the order given: one pipeline of HGETs."""
    pipe = client().pipeline(transaction=False)
    for product_id in product_ids:
        pipe.hget(keys.product(product_id), "name")
    return [(i, name) for i, name in zip(product_ids, pipe.execute()) if name is not None]
