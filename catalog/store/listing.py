"""The product list: filters, sort and search computed inside Redis, one page in one transaction.

With several partitions (``keys.PARTITIONS``, docs/cluster.md) every partition computes its
part of the page over its own indexes, all of them sent together (one wave: one round trip on
one server, one per node at once on a cluster), and the app merges the parts as the sorted sets
order them, by score then id (scatter-gather, as sharded search engines do). Each partition is
asked for every row up to the page's end, so a deep page costs the partitions that many rows
each; totals and chip counts add up, and the tag cloud is the sum of the partitions' clouds.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from catalog import keys, types
from catalog.documents import LIST_FIELDS, ProductRow, name_key, name_score, sku_key
from catalog.store import gather
from catalog.store.core import NAMES
from config.redis import client
from config.store.ngrams import Hits, Query
from config.store.scripts import run_script
from config.store.sorting import SORT_LUA

SEARCH_LIMIT = 2000  # name matches taken into a search; more is not a useful search
TEMP_TTL = 60
# The chips count a filtered list when it can hold at most this many products (``_Prefetched.bound``),
# any search included: each count is an intersection costing Redis the smaller of the list and the
# tag's set, and a broad filter of a large catalog pays some 35 of them in one transaction (92 ms at
# 100,000 products, a tag on 20,000 of them). A larger list's chips count the catalog.
LIVE_COUNT_LIMIT = SEARCH_LIMIT


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
    counts_of_catalog: bool = False  # filtered, but the list is too large for its chips to count it

    @property
    def reachable(self) -> int:
        """The rows its pages reach: all of them with one partition, ``gather.WINDOW_LIMIT`` at most with several."""
        return self.total if keys.PARTITIONS == 1 else min(self.total, gather.WINDOW_LIMIT)


def _queue_search(pipe, q: str, p: int):
    """Queue partition ``p``'s search reads on ``pipe``; returns what turns their replies into (ids, capped).

    Any part of a name (three characters or more: the trigram index, ``NAMES``),
    or, when every word is shorter, names starting with ``q`` (the lexicographic
    index, the better tool for a prefix).
    """
    query = Query.parse(q)
    start = len(pipe.command_stack)
    if query.usable:
        read_names = NAMES[p].queue_search(pipe, query, SEARCH_LIMIT)
    else:
        prefix = name_key(q).encode()
        pipe.zrangebylex(keys.names(p), b"[" + prefix, b"[" + prefix + b"\xff", 0, SEARCH_LIMIT + 1)
    count = len(pipe.command_stack) - start

    def read(replies: list) -> tuple[list[str], bool]:
        if query.usable:
            hits = read_names(replies[:count])
            return hits.ids, hits.capped
        members = replies[0]
        return [m.rsplit("\x00", 1)[1] for m in members[:SEARCH_LIMIT]], len(members) > SEARCH_LIMIT

    return read, count


@dataclass
class _Prefetched:
    """What the round trip before the list's transaction read."""

    search: dict[int, list[str]]  # the search's ids by partition
    capped: bool = False  # the search took SEARCH_LIMIT names and left more
    tags: list[str] = field(default_factory=list)  # the tag cloud's names, to count
    sizes: dict[str, int] = field(default_factory=dict)  # each filter set's size (SCARD), by tag or type
    bound: int = 0  # the most products the filtered list can hold, summed over the partitions


def _sets_of(query: ProductQuery, p: int) -> list[tuple[str, str]]:
    """(name, key) of each set the filter keeps products of, in partition ``p``: its type, its all-of
    tags and its any-of tags."""
    chosen = [(f"type:{query.type}", keys.type_index(query.type, p))] if query.type else []
    return chosen + [(tag, keys.tag_index(tag, p)) for tag in dict.fromkeys((*query.tags_all, *query.tags_any))]


def _bound(query: ProductQuery, sizes: dict[str, int], hits: int | None, catalog: int) -> int:
    """The most products one partition's filtered list can hold: no more than its type's set, its
    smallest all-of tag set, its any-of sets together or its search's hits; its catalog when none
    applies (the none-of tags alone)."""
    limits = [sizes[f"type:{query.type}"]] if query.type else []
    limits += [sizes[tag] for tag in query.tags_all]
    if query.tags_any:
        limits.append(sum(sizes[tag] for tag in dict.fromkeys(query.tags_any)))
    if hits is not None:
        limits.append(hits)
    return min(limits) if limits else catalog


def _prefetch(query: ProductQuery, count_tags: bool) -> _Prefetched:
    """The round trip before the list's transaction, when it needs one: the search hits of every
    partition and the exact SKU, and when a filter is on the tag cloud's names (their counts follow
    the filter, so the transaction must know which tags to count) and the size of each set the
    filter keeps products of (whether the list is small enough to count: ``LIVE_COUNT_LIMIT``)."""
    transaction = bool(query.q) and keys.PARTITIONS == 1  # one partition: its scratch keys in one MULTI
    pipe = client().pipeline(transaction=transaction)
    reads = [(p, *_queue_search(pipe, query.q, p)) for p in keys.partitions()] if query.q else []
    if query.q:
        pipe.hget(keys.skus(), sku_key(query.q))
    clouds_at = len(pipe.command_stack)
    if count_tags:
        for p in keys.partitions():
            pipe.zrevrange(keys.tags(p), 0, gather.cloud_size() - 1, withscores=True)
        unbounded = not query.q and not _sets_of(query, 0)  # the none-of tags alone: bound by the catalog
        for p in keys.partitions():
            for _, key in _sets_of(query, p):
                pipe.scard(key)
            if unbounded:
                pipe.zcard(keys.products(p))
    replies = pipe.execute()
    found = _Prefetched({p: [] for p in keys.partitions()})
    at = 0
    for p, read, count in reads:
        ids, more = read(replies[at : at + count])
        found.search[p], found.capped, at = ids, found.capped or more, at + count
    if query.q and replies[at]:
        by_sku = replies[at]
        found.search[keys.partition_of(by_sku)].append(by_sku)
    if not count_tags:
        return found
    found.tags = [tag for tag, _ in gather.cloud(replies[clouds_at : clouds_at + keys.PARTITIONS])]
    sizes = iter(replies[clouds_at + keys.PARTITIONS :])
    for p in keys.partitions():
        mine = {name: next(sizes) for name, _ in _sets_of(query, p)}
        catalog = next(sizes) if unbounded else 0
        for name, size in mine.items():
            found.sizes[name] = found.sizes.get(name, 0) + size
        found.bound += _bound(query, mine, len(found.search[p]) if query.q else None, catalog)
    return found


# A page read from one sorted set, with no set algebra: the total, the page joined to its fields
# (SORT ... BY nosort keeps the sorted set's order and applies the page as a range), the catalog's
# size, the tag cloud, the page's scores when asked (for the merge of several partitions) and each
# type's count. One EVALSHA instead of a MULTI of eleven commands: the client packs one command and
# parses one reply (a quarter less of the web process's CPU, which is what a page costs beyond its
# round trip); the server runs the same reads, and copying the page through Lua costs it about what
# the client saves, so the round trip's own time stays the same.
# KEYS: the source, every product's index, the tag cloud, then each type's set.
# ARGV: offset, count (1 or more), ASC or DESC, the tag cloud's size (0: all), "0" for the rows, "1" for the
# rows and their scores, "2" for the scores alone (the ids with them), then the GET patterns.
_PAGE = (
    SORT_LUA
    + """
local options = {'BY', 'nosort', 'LIMIT', ARGV[1], ARGV[2], ARGV[3]}
for i = 6, #ARGV do
  options[#options + 1] = 'GET'
  options[#options + 1] = ARGV[i]
end
local rows = {}
if ARGV[5] ~= '2' then rows = sort(KEYS[1], unpack(options)) end
local reply = {redis.call('ZCARD', KEYS[1]), rows, redis.call('ZCARD', KEYS[2])}
reply[4] = redis.call('ZREVRANGE', KEYS[3], 0, tonumber(ARGV[4]) - 1, 'WITHSCORES')
reply[5] = {}
if ARGV[5] ~= '0' then
  local first, last, range = tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1, 'ZRANGE'
  if ARGV[3] == 'DESC' then range = 'ZREVRANGE' end
  reply[5] = redis.call(range, KEYS[1], first, last, 'WITHSCORES')
end
for i = 4, #KEYS do reply[#reply + 1] = redis.call('SCARD', KEYS[i]) end
return reply
"""
)


# A page of the products of one set (a tag, or a type in an order of another index), or of those outside
# it (one none-of tag), its chips counting the catalog (a list too large to count, ``LIVE_COUNT_LIMIT``):
# the sort index walked in order, 256 ids a step, each kept if the set holds it (or does not), until the
# page is full: a broad filter's first pages test a few hundred ids, where intersecting the sort index
# with the set (or taking the set from it) builds the whole list (14 ms of Redis for a set of 20,000 in
# 100,000 products; 36 ms for the 80,000 outside it). A page the walk would not reach within
# ``WALK_BUDGET`` ids (a deep one: the list taken as spread evenly), or one it did not (a list whose
# products come late in the order), is read from that intersection (or difference), built in the
# scratch key and unlinked. The total is the set's size (or the rest of the index): every product is in
# every sort index (the invariant "indexes agree"), which is why a type's own creation index is not
# walked. The reply is ``_PAGE``'s, with no scores (one partition).
# KEYS: the source, every product's index, the tag cloud, the set, a scratch key, then each type's set.
# ARGV: offset, count, ASC or DESC, the tag cloud's size, the walk's budget, "1" to keep the set's
# products or "0" those outside it, then the GET patterns.
_WALKED_PAGE = (
    SORT_LUA
    + """
local source, members, scratch = KEYS[1], KEYS[4], KEYS[5]
local offset, count, budget, inside = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[5]), ARGV[6] == '1'
local range = 'ZRANGE'
if ARGV[3] == 'DESC' then range = 'ZREVRANGE' end
local gets = {}
for i = 7, #ARGV do gets[#gets + 1] = ARGV[i] end
local page, kept, walked, size = {}, 0, 0, redis.call('ZCARD', source)
local listed = redis.call('SCARD', members)
if not inside then listed = size - listed end
-- a page the walk would not reach within its budget, the list spread evenly: the whole list at once
if listed <= 0 or (offset + count) * size / listed > budget then walked = budget end
while #page < count and walked < size and walked < budget do
  local batch = redis.call(range, source, walked, walked + 255)
  for _, id in ipairs(batch) do
    if (redis.call('SISMEMBER', members, id) == 1) == inside then
      kept = kept + 1
      if kept > offset then
        page[#page + 1] = id
        if #page == count then break end
      end
    end
  end
  walked = walked + #batch
end
if #page < count and walked < size then
  if inside then redis.call('ZINTERSTORE', scratch, 2, source, members, 'WEIGHTS', 1, 0)
  else redis.call('ZDIFFSTORE', scratch, 2, source, members) end
  page = redis.call(range, scratch, offset, offset + count - 1)
  redis.call('UNLINK', scratch)
end
local reply = {math.max(listed, 0), rows_of(page, gets), redis.call('ZCARD', KEYS[2])}
reply[4] = redis.call('ZREVRANGE', KEYS[3], 0, tonumber(ARGV[4]) - 1, 'WITHSCORES')
reply[5] = {}
for i = 6, #KEYS do reply[#reply + 1] = redis.call('SCARD', KEYS[i]) end
return reply
"""
)
WALK_BUDGET = 10_000  # ids of the sort index a walked page tests at most (some 4 ms of Redis)


def _source_of(order: str, type_slug: str, p: int) -> tuple[str, bool]:
    """The sorted set a page in ``order`` is read from in partition ``p``, and whether it already
    holds only the type.

    Newest or oldest first with a type is that type's own creation index, so
    the type alone is a page read and the type set drops out of the algebra;
    every other order reads the shared sort index and intersects the type set.
    """
    column = order.lstrip("-")
    if column != "created":
        return keys.sort_index(column, p), False
    return (keys.type_created(type_slug, p), True) if type_slug else (keys.products(p), False)


def _page_rows(
    query: ProductQuery, flats: list[list] | None, scores: list[list], own: tuple[str, ...]
) -> list[ProductRow]:
    """The page's rows from each partition's part: the rows it read (SORT ... GET, flat) and its window's
    scores, merged (``gather.merged``); with ``flats`` None (a page past the first of several
    partitions, which read no rows), the merged window's ids, whose rows are read now, a second
    round trip (``gather.Window``)."""
    desc = query.order.startswith("-")
    if flats is None:
        ids = gather.merged_ids(scores, desc, query.offset, query.limit)
        return [ProductRow.from_values(row[0], row[1:], own) for row in gather.fields_of(ids, (*LIST_FIELDS, *own))]
    width = len(LIST_FIELDS) + len(own) + 1
    parts = [
        ([ProductRow.from_values(flat[i], flat[i + 1 : i + width], own) for i in range(0, len(flat), width)], pairs)
        for flat, pairs in zip(flats, scores)
    ]
    return gather.merged(parts, desc, query.offset, query.limit)


def product_page(
    fields: tuple[str, ...], order: str = "-created", type: str = "", offset: int = 0, limit: int = 25
) -> tuple[int, list[list[str | None]]]:
    """The total and one page of ``[id, *fields]`` rows (None for an absent field): ZCARD and SORT ... GET
    of every partition in one pipeline, one round trip.

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
    desc, window = order.startswith("-"), gather.window(offset, limit)
    pipe = client().pipeline(transaction=False)
    for p in keys.partitions():
        source, typed = _source_of(order, type, p)
        if type and not typed:
            raise ValueError("a type with an order other than creation needs the list's set algebra")
        pipe.zcard(source)
        gather.queue_window(pipe, source, window, ["#", *(f"{keys.product_glob(p)}->{name}" for name in fields)], desc)
    replies = pipe.execute()
    step = 1 + window.inline + (keys.PARTITIONS > 1)
    total, width = sum(replies[0::step]), len(fields) + 1
    if not window.inline:
        pairs = [gather.flat(replies[at + 1]) for at in range(0, len(replies), step)]
        return total, gather.fields_of(gather.merged_ids(pairs, desc, offset, limit), fields)
    parts = []
    for at in range(0, len(replies), step):
        flat = replies[at + 1]
        rows = [flat[i : i + width] for i in range(0, len(flat), width)]
        parts.append((rows, gather.flat(replies[at + 2]) if step == 3 else []))
    return total, gather.merged(parts, desc, offset, limit, ident=lambda row: row[0])


def _plain_page(query: ProductQuery, order_of, own: tuple[str, ...]) -> ProductList:
    """A query with no filter to compute, its chips counting the whole catalog: one script (``_PAGE``)
    a partition, all sent at once."""
    direction = "DESC" if query.order.startswith("-") else "ASC"
    window = gather.window(query.offset, query.limit)
    calls = []
    for p in keys.partitions():
        script_keys = [order_of(p), keys.products(p), keys.tags(p), *(keys.type_index(slug, p) for slug in types.TYPES)]
        gets = ["#", *(f"{keys.product_glob(p)}->{name}" for name in (*LIST_FIELDS, *own))] if window.inline else []
        scored = "0" if keys.PARTITIONS == 1 else "1" if window.inline else "2"
        calls.append((script_keys, [window.start, window.count, direction, gather.cloud_size(), scored, *gets]))
    if len(calls) == 1:
        replies = [run_script(_PAGE, *calls[0])]
    else:
        pipe = client().pipeline(transaction=False)
        for script_keys, args in calls:
            pipe.eval(_PAGE, len(script_keys), *script_keys, *args)
        replies = pipe.execute()
    rows = _page_rows(query, [r[1] for r in replies] if window.inline else None, [r[4] for r in replies], own)
    return ProductList(
        rows=[row for row in rows if row.name],
        total=sum(r[0] for r in replies),
        catalog_size=sum(r[2] for r in replies),
        tag_cloud=gather.cloud([list(zip(r[3][0::2], r[3][1::2])) for r in replies]),
        type_counts={slug: sum(r[5 + n] for r in replies) for n, slug in enumerate(types.TYPES)},
    )


@dataclass
class _Part:
    """What one partition's share of a filtered list queued, where its replies start."""

    target: str
    page_at: int = 0
    counts_at: int = 0
    tail_at: int = 0


def _queue_part(pipe, query: ProductQuery, p: int, search: list[str], counted: list[str], filtered: bool) -> _Part:
    """Queue partition ``p``'s share of a filtered list: its set algebra, its window of the page,
    its chip counts and the catalog's size, all on its own keys (``list_products``)."""
    source, typed = _source_of(query.order, query.type, p)
    positives = [keys.type_index(query.type, p)] if query.type and not typed else []
    nones = [keys.tag_index(t, p) for t in query.tags_none]
    target, temps = source, []
    if positives or query.q or query.tags_all or query.tags_any or nones:
        token = secrets.token_hex(8)
        target = keys.temp(token, p)
        temps.append(target)
        positives += [keys.tag_index(t, p) for t in query.tags_all]
        if query.tags_any:
            union = keys.temp_set(token, "any", p)
            temps.append(union)
            pipe.sunionstore(union, [keys.tag_index(t, p) for t in query.tags_any])
            positives.append(union)
        if query.q:
            found = keys.temp_set(token, "q", p)  # left absent when nothing matched: the intersection is empty
            temps.append(found)
            if search:
                pipe.sadd(found, *search)
            positives.append(found)
        if positives:
            base = positives[0]
            if len(positives) > 1 or nones:
                base = keys.temp_set(token, "ids", p)
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
    part = _Part(target, page_at=len(pipe.command_stack))
    own = types.TYPES[query.type].field_names if query.type else ()
    gets = ["#", *(f"{keys.product_glob(p)}->{name}" for name in (*LIST_FIELDS, *own))]
    pipe.zcard(target)
    gather.queue_window(pipe, target, gather.window(query.offset, query.limit), gets, query.order.startswith("-"))
    part.counts_at = len(pipe.command_stack)
    if filtered:
        scratch = keys.temp(secrets.token_hex(8), p)
        for key in [keys.tag_index(t, p) for t in counted] + [keys.type_index(t, p) for t in _counted_types(query)]:
            pipe.zinterstore(scratch, {target: 0, key: 0})  # its reply: how many of the list are in the set
        pipe.expire(scratch, TEMP_TTL)
        temps.append(scratch)
    if temps:
        pipe.unlink(*temps)
    part.tail_at = len(pipe.command_stack)
    pipe.zcard(keys.products(p))
    if not filtered:
        pipe.zrevrange(keys.tags(p), 0, gather.cloud_size() - 1, withscores=True)
        for slug in types.TYPES:
            pipe.scard(keys.type_index(slug, p))
    return part


def _counted_types(query: ProductQuery) -> list[str]:
    """The types whose chips count the filtered list: none with a type chosen (the others count 0)."""
    return [] if query.type else list(types.TYPES)


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
    it, with the search when there is one, and the size of each set the filter
    keeps products of: a list that can hold more than ``LIVE_COUNT_LIMIT``
    products gets the catalog's counts instead (``counts_of_catalog``).

    With several partitions, each one's share is queued on one pipeline (not a
    transaction: the partitions are read side by side, as a sharded engine reads
    its shards) and the parts are merged (see the module's docstring).
    """
    kind = types.TYPES.get(query.type) if query.type else None
    if query.type and kind is None:
        raise ValueError(f"unknown product type {query.type!r}")
    filtered = query.live_counts and bool(query.q or query.type or query.tags_all or query.tags_any or query.tags_none)
    typed = _source_of(query.order, query.type, 0)[1]
    if not filtered and not (
        query.q or query.tags_all or query.tags_any or query.tags_none or (query.type and not typed)
    ):
        return _plain_page(query, lambda p: _source_of(query.order, query.type, p)[0], kind.field_names if kind else ())
    fetched = _prefetch(query, count_tags=filtered) if filtered or query.q else _Prefetched({})
    search, capped = fetched.search, fetched.capped
    of_catalog = filtered and fetched.bound > LIVE_COUNT_LIMIT
    if of_catalog and keys.PARTITIONS == 1 and (walked := _one_set(query)) is not None:
        return _walked_page(query, *walked, kind.field_names if kind else (), fetched)
    filtered = filtered and not of_catalog
    counted_tags = list(dict.fromkeys([*fetched.tags, *query.tags_all]))  # a chosen tag is always shown
    pipe = client().pipeline(transaction=keys.PARTITIONS == 1)
    parts = {p: _queue_part(pipe, query, p, search.get(p, []), counted_tags, filtered) for p in keys.partitions()}
    replies = pipe.execute()
    own = kind.field_names if kind else ()
    # each partition's window of (id, score) pairs: the last command before its counts
    scores = [gather.flat(replies[part.counts_at - 1]) if keys.PARTITIONS > 1 else [] for part in parts.values()]
    inline = gather.window(query.offset, query.limit).inline
    rows = _page_rows(query, [replies[part.page_at + 1] for part in parts.values()] if inline else None, scores, own)
    total = sum(replies[part.page_at] for part in parts.values())
    counted_types = _counted_types(query)
    if filtered:
        tallies = [
            sum(replies[part.counts_at + n] for part in parts.values())
            for n in range(len(counted_tags) + len(counted_types))
        ]
        chosen = set(query.tags_all)
        cloud = sorted(
            ((t, n) for t, n in zip(counted_tags, tallies) if n or t in chosen), key=lambda pair: (-pair[1], pair[0])
        )
        counts = tallies[len(counted_tags) :] or [total if slug == query.type else 0 for slug in types.TYPES]
    else:
        cloud = gather.cloud([replies[part.tail_at + 1] for part in parts.values()])
        counts = [sum(replies[part.tail_at + 2 + n] for part in parts.values()) for n in range(len(types.TYPES))]
        if of_catalog:
            cloud = _with_chosen(cloud, query, fetched)
    return ProductList(
        rows=[row for row in rows if row.name],
        total=total,
        catalog_size=sum(replies[part.tail_at] for part in parts.values()),
        tag_cloud=[(tag, int(score)) for tag, score in cloud],
        type_counts=dict(zip(types.TYPES, counts)),
        search_capped=capped,
        counts_of_catalog=of_catalog,
    )


def _with_chosen(cloud: list, query: ProductQuery, fetched: _Prefetched) -> list:
    """The catalog's tag cloud with every chosen tag shown, with its size read before the list."""
    shown = {tag for tag, _ in cloud}
    return cloud + [(tag, fetched.sizes[tag]) for tag in dict.fromkeys(query.tags_all) if tag not in shown]


def _one_set(query: ProductQuery) -> tuple[str, bool] | None:
    """The one set a filter keeps the products of (True) or drops them (False), when it is nothing more
    and its list is read from an index of every product (no search, no second set, no type's own
    creation index): a tag, a type in an order of another column, or one none-of tag."""
    if query.q or (query.tags_all and query.tags_any) or (query.type and _source_of(query.order, query.type, 0)[1]):
        return None
    sets = [(keys.type_index(query.type, 0), True)] if query.type else []
    sets += [(keys.tag_index(tag, 0), True) for tag in dict.fromkeys((*query.tags_all, *query.tags_any))]
    sets += [(keys.tag_index(tag, 0), False) for tag in dict.fromkeys(query.tags_none)]
    return sets[0] if len(sets) == 1 else None


def _walked_page(
    query: ProductQuery, members: str, inside: bool, own: tuple[str, ...], fetched: _Prefetched
) -> ProductList:
    """A page of the products of ``members`` (``inside``) or of those outside it, its chips counting the
    catalog: one script (``_WALKED_PAGE``), one partition."""
    source = _source_of(query.order, query.type, 0)[0]
    direction = "DESC" if query.order.startswith("-") else "ASC"
    scratch = keys.temp(secrets.token_hex(8), 0)
    script_keys = [source, keys.products(0), keys.tags(0), members, scratch]
    script_keys += [keys.type_index(slug, 0) for slug in types.TYPES]
    gets = ["#", *(f"{keys.product_glob(0)}->{name}" for name in (*LIST_FIELDS, *own))]
    args = [query.offset, query.limit, direction, gather.cloud_size(), WALK_BUDGET, int(inside), *gets]
    reply = run_script(_WALKED_PAGE, script_keys, args)
    rows = _page_rows(query, [reply[1]], [reply[4]], own)
    cloud = gather.cloud([list(zip(reply[3][0::2], reply[3][1::2]))])
    return ProductList(
        rows=[row for row in rows if row.name],
        total=reply[0],
        catalog_size=reply[2],
        tag_cloud=[(tag, int(score)) for tag, score in _with_chosen(cloud, query, fetched)],
        type_counts={slug: reply[5 + n] for n, slug in enumerate(types.TYPES)},
        counts_of_catalog=True,
    )


def suggest(text: str, limit: int = 8) -> list[tuple[str, str]]:
    """Up to ``limit`` (id, name) pairs whose name holds ``text``, ordered by name: one round trip
    (the trigram index, ``NAMES.search``; with several partitions, each one's search in one pipeline,
    merged by name). Text with no word of three characters suggests nothing: the caller asks for more
    (a prefix of one or two letters would match too much to be a hint)."""
    query = Query.parse(text)
    if not query.usable:
        return []
    if keys.PARTITIONS == 1:
        return NAMES[0].search(text, limit).items
    pipe = client().pipeline(transaction=False)
    reads = [(NAMES[p].queue_search(pipe, query, limit * 4), len(pipe.command_stack)) for p in keys.partitions()]
    replies, start, items = pipe.execute(), 0, []
    for read, end in reads:
        hits: Hits = read(replies[start:end])
        items += hits.items
        start = end
    items.sort(key=lambda item: (name_score(item[1]), item[0]))
    return items[:limit]


def product_labels(product_ids: list[int]) -> list[tuple[int, str]]:
    """(id, name) of each product that exists, in the order given: one pipeline of HGETs."""
    pipe = client().pipeline(transaction=False)
    for product_id in product_ids:
        pipe.hget(keys.product(product_id), "name")
    return [(i, name) for i, name in zip(product_ids, pipe.execute()) if name is not None]
