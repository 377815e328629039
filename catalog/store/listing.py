"""The product list: filters, sort and search computed inside Redis, one page in one transaction.

With several partitions (``keys.PARTITIONS``, docs/cluster.md) every partition computes its part of the page
over its own indexes, all of them sent together (one wave: one round trip on one server, one per node at once
on a cluster), and the app merges the parts as the sorted sets order them, by score then id (scatter-gather,
as sharded search engines do). Each partition is asked for every row up to the page's end, so a deep page
costs the partitions that many rows each; totals and chip counts add up, and the tag cloud is the sum of the
partitions' clouds.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace

from catalog import keys, types
from catalog.documents import LIST_FIELDS, ProductRow, name_score
from catalog.store import gather, walk
from catalog.store.core import NAMES
from catalog.store.prefetch import Prefetched, prefetch, search_names
from config.redis import client
from config.store import pipelined
from config.store.ngramtext import Query
from config.store.scripts import execute, lua, queue_script, register, run_script
from config.store.sorting import SORT_LUA

TEMP_TTL = 60


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


# A page with no set algebra, its chips and the catalog's size (lua/page.lua): one script rather than
# a MULTI of eleven commands, so the client packs one command and parses one reply (the web process's
# CPU is what a page costs beyond its round trip).
_PAGE = register(SORT_LUA + "\n" + lua(__file__, "page"))


def _source_of(order: str, type_slug: str, p: int) -> tuple[str, bool]:
    """The sorted set a page in ``order`` is read from in partition ``p``, and whether it holds only the
    type: by creation, the type's own index (the type set drops out of the algebra)."""
    column = order.lstrip("-")
    if column != "created":
        return keys.sort_index(column, p), False
    return (keys.type_created(type_slug, p), True) if type_slug else (keys.products(p), False)


def _page_rows(
    query: ProductQuery, flats: list[list] | None, scores: list[list], own: tuple[str, ...]
) -> list[ProductRow]:
    """The page's rows merged from each partition's rows (SORT ... GET, flat) and window's scores; with
    ``flats`` None (a page past the first of several partitions), read now, a second round trip."""
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
    """The total and one page of ``[id, *fields]`` rows (None for an absent field), with no chips or
    filter but a type: ZCARD and SORT ... GET of every partition, one round trip. ``fields`` are never
    user input. Not a transaction, like SQL's COUNT and SELECT in autocommit (MULTI/EXEC would cost two
    commands more); not a script (Lua copies the page into a table and back, costing the server more)."""
    if type and types.TYPES.get(type) is None:
        raise ValueError(f"unknown product type {type!r}")
    desc, window = order.startswith("-"), gather.window(offset, limit)
    pipe = client().pipeline(transaction=False)
    for p in keys.partitions():
        source, typed = _source_of(order, type, p)
        if type and not typed:
            raise ValueError("a type with an order other than creation needs the list's set algebra")
        pipe.zcard(source)
        gather.queue_window(pipe, source, window, gather.gets(p, fields), desc)
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


def _from_pages(query: ProductQuery, replies: list[list], own: tuple[str, ...], inline: bool) -> ProductList:
    """The list from each partition's ``_PAGE`` reply (or the walked page's, of the same shape)."""
    rows = _page_rows(query, [r[1] for r in replies] if inline else None, [r[4] for r in replies], own)
    return ProductList(
        rows=[row for row in rows if row.name],
        total=sum(r[0] for r in replies),
        catalog_size=sum(r[2] for r in replies),
        tag_cloud=gather.cloud([list(zip(r[3][0::2], r[3][1::2])) for r in replies]),
        type_counts={slug: sum(r[5 + n] for r in replies) for n, slug in enumerate(types.TYPES)},
    )


def _plain_page(query: ProductQuery, order_of, own: tuple[str, ...]) -> ProductList:
    """A query with no filter to compute, its chips counting the catalog: ``_PAGE`` a partition, at once."""
    direction = "DESC" if query.order.startswith("-") else "ASC"
    window = gather.window(query.offset, query.limit)
    calls = []
    for p in keys.partitions():
        script_keys = [order_of(p), keys.products(p), keys.tags(p), *(keys.type_index(slug, p) for slug in types.TYPES)]
        gets = gather.gets(p, (*LIST_FIELDS, *own)) if window.inline else []
        scored = "0" if keys.PARTITIONS == 1 else "1" if window.inline else "2"
        calls.append((script_keys, [window.start, window.count, direction, gather.cloud_size(), scored, *gets]))
    if len(calls) == 1:
        replies = [run_script(_PAGE, *calls[0])]
    else:
        pipe = client().pipeline(transaction=False)
        for script_keys, args in calls:
            queue_script(pipe, _PAGE, script_keys, args)
        replies = execute(pipe)
    return _from_pages(query, replies, own, window.inline)


@dataclass
class _Part:
    """What one partition's share of a filtered list queued, where its replies start."""

    target: str
    page_at: int = 0
    counts_at: int = 0
    tail_at: int = 0


def _queue_part(pipe, query: ProductQuery, p: int, fetched: Prefetched, counted: list[str], filtered: bool) -> _Part:
    """Queue partition ``p``'s share of a filtered list, all on its own keys (``list_products``)."""
    search, unions = fetched.search.get(p, []), fetched.sets.get(p)
    source, typed = _source_of(query.order, query.type, p)
    positives = [keys.type_index(query.type, p)] if query.type and not typed else []
    nones = [keys.tag_index(t, p) for t in query.tags_none]
    target, temps = source, []
    listed = ""  # the plain set of the list's ids, when there is one: the chips count it (see below)
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
        if query.q and unions is not None:
            # The matches are the intersection of each word's union of sets: read as tags' sets are.
            matched = []
            for n, union in enumerate(unions):
                if len(union) == 1:
                    matched.append(union[0])
                    continue
                merged = keys.temp_set(token, f"word{n}", p)  # left absent when no word holds it: empty
                temps.append(merged)
                if union:
                    pipe.sunionstore(merged, list(union))
                matched.append(merged)
            if search:  # the exact SKU's product beside them
                found = keys.temp_set(token, "q", p)
                temps.append(found)
                pipe.sinterstore(found, matched)
                pipe.sadd(found, *search)
                matched = [found]
            positives += matched
        elif query.q:
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
            # Every product is in every sort index and in its partition's product index (check_integrity's
            # invariants), so the list is ``base`` itself unless the source holds one type only.
            listed = "" if typed else base
        else:
            pipe.zdiffstore(target, [source, *nones])
        for temp in temps:
            pipe.expire(temp, TEMP_TTL)
    part = _Part(target, page_at=len(pipe.command_stack))
    own = types.TYPES[query.type].field_names if query.type else ()
    pipe.zcard(target)
    window, desc = gather.window(query.offset, query.limit), query.order.startswith("-")
    gather.queue_window(pipe, target, window, gather.gets(p, (*LIST_FIELDS, *own)), desc)
    part.counts_at = len(pipe.command_stack)
    if filtered:
        # Each count's reply is how many of the list are in the set: SINTERSTORE of the list's plain set,
        # cheaper than ZINTERSTORE of its sorted one (no scores to carry), which serves where it has none.
        scratch = keys.temp_set(secrets.token_hex(8), "count", p) if listed else keys.temp(secrets.token_hex(8), p)
        for key in [keys.tag_index(t, p) for t in counted] + [keys.type_index(t, p) for t in _counted_types(query)]:
            if listed:
                pipe.sinterstore(scratch, [listed, key])
            else:
                pipe.zinterstore(scratch, {target: 0, key: 0})
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

    With nothing to compute (no search, no tag, a type only in the creation order: its own creation
    index is the source) the page and its chips are one script (``_PAGE``). Otherwise one transaction
    does the set algebra in Redis (SUNIONSTORE of the any-of tags, SINTERSTORE with the type set, the
    all-of tags and the search hits, SDIFFSTORE of the none-of tags), orders the ids by ZINTERSTORE with
    the sort index (the set weighted 0; ZDIFFSTORE with no positive filter) and pages them with
    SORT ... BY nosort GET; its temporary keys are random, expire in 60 seconds and are deleted by it.

    Live counts: with a filter and ``live_counts`` the chips count the filtered list, one SINTERSTORE
    of the list's set (ZINTERSTORE of the sorted result where it has none) with each type and tag set,
    the tags to count read in the round trip before, with the search and each filter set's size. A
    list that can hold more than ``LIVE_COUNT_LIMIT`` gets the catalog's counts (``counts_of_catalog``),
    and with one partition a list of one set or several is then read by ``walk``, not built. With
    several partitions each one's share is queued on one pipeline, not a transaction, and the parts
    are merged (see the module's docstring).
    """
    kind = types.TYPES.get(query.type) if query.type else None
    if query.type and kind is None:
        raise ValueError(f"unknown product type {query.type!r}")
    own = kind.field_names if kind else ()
    filtered = query.live_counts and bool(query.q or query.type or query.tags_all or query.tags_any or query.tags_none)
    source, typed = _source_of(query.order, query.type, 0)
    if not filtered and not (
        query.q or query.tags_all or query.tags_any or query.tags_none or (query.type and not typed)
    ):
        return _plain_page(query, lambda p: _source_of(query.order, query.type, p)[0], own)
    fetched = prefetch(query, count_tags=filtered) if filtered or query.q else Prefetched({})
    of_catalog = filtered and not fetched.countable
    walkable = of_catalog and keys.PARTITIONS == 1
    if walkable and (reply := walk.page(query, typed, fetched, source, (*LIST_FIELDS, *own))):
        listed = _from_pages(query, [reply], own, inline=True)
        return replace(listed, tag_cloud=fetched.with_chosen(listed.tag_cloud, query.tags_all), counts_of_catalog=True)
    filtered = filtered and not of_catalog
    counted_tags = list(dict.fromkeys([*fetched.tags, *query.tags_all]))  # a chosen tag is always shown
    pipe = client().pipeline(transaction=keys.PARTITIONS == 1)
    parts = {p: _queue_part(pipe, query, p, fetched, counted_tags, filtered) for p in keys.partitions()}
    replies = pipe.execute()
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
            cloud = fetched.with_chosen(cloud, query.tags_all)
    return ProductList(
        rows=[row for row in rows if row.name],
        total=total,
        catalog_size=sum(replies[part.tail_at] for part in parts.values()),
        tag_cloud=[(tag, int(score)) for tag, score in cloud],
        type_counts=dict(zip(types.TYPES, counts)),
        search_capped=fetched.capped,
        counts_of_catalog=of_catalog,
    )


def suggest(text: str, limit: int = 8) -> list[tuple[str, str]]:
    """Up to ``limit`` (id, name) pairs whose name holds ``text``, ordered by name: one round trip (the
    trigram index; with several partitions, each one's search on one pipeline, merged by name)."""
    query = Query.parse(text)
    if not query.usable:
        return []
    if keys.PARTITIONS == 1:
        return NAMES[0].search(text, limit).items
    items = [item for hits in search_names(query, limit * 4, keys.partitions()).values() for item in hits.items]
    items.sort(key=lambda item: (name_score(item[1]), item[0]))
    return items[:limit]


def product_labels(product_ids: list[int]) -> list[tuple[int, str]]:
    """(id, name) of each product that exists, in the order given: one pipeline of HGETs."""
    names = pipelined(product_ids, lambda pipe, product_id: pipe.hget(keys.product(product_id), "name"))
    return [(i, name) for i, name in zip(product_ids, names) if name is not None]
