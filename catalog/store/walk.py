"""A page of one set's products (or of those outside it) read by walking a sort index, not by
building the list: how a broad filter's page reads a few hundred ids where its intersection with the
sort index would build tens of thousands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catalog import keys, types
from catalog.store import gather
from catalog.store.prefetch import sets_of
from config.redis import client
from config.store.scripts import lua, register, run_script
from config.store.sorting import SORT_LUA

if TYPE_CHECKING:
    from catalog.store.listing import ProductQuery

# A broad filter's page by walking the sort index (lua/walked_page.lua), ``WALK_STEP`` ids a call.
_WALKED_PAGE = register(SORT_LUA + "\n" + lua(__file__, "walked_page"))
WALK_STEP = 256  # ids of the sort index one call tests at most (a SISMEMBER each): bounds each command's time
# A slice of a set's members kept by the other filter sets, with their sort scores (lua/filtered.lua).
_FILTERED = register(lua(__file__, "filtered"))
# Members of the set one call reads at most (SSCAN's COUNT; a small set comes whole), each tested against
# the other sets and scored: what one command holds Redis for, whatever the set's size.
SCAN_STEP = 64


def one_set(query: ProductQuery, typed: bool, matches: str = "") -> tuple[str, bool] | None:
    """The one set a filter keeps the products of (True) or drops them (False), when it is nothing more
    and its list is read from an index of every product (not a type's own creation index: ``typed``)."""
    if (query.q and not matches) or (query.tags_all and query.tags_any) or (query.type and typed):
        return None
    chosen = [(matches, True)] if matches else []
    chosen += [(key, True) for _, key in sets_of(query, 0)]
    chosen += [(keys.tag_index(tag, 0), False) for tag in dict.fromkeys(query.tags_none)]
    return chosen[0] if len(chosen) == 1 else None


def several_sets(query: ProductQuery, typed: bool, sizes: dict[str, int], matches: str, matched: int):
    """The scans that read a filter of plain sets from the sets' side, each (the set scanned, all-of,
    any-of, none-of sets): one of the smallest all-of set, or with any-of sets alone one of each, each
    leaving out what an earlier one kept. None for none-of sets alone."""
    if query.q and not matches:
        return None
    alls = [(matched, matches)] if query.q else []
    if query.type and not typed:
        alls.append((sizes[f"type:{query.type}"], keys.type_index(query.type, 0)))
    alls += [(sizes[tag], keys.tag_index(tag, 0)) for tag in dict.fromkeys(query.tags_all)]
    anys = [keys.tag_index(tag, 0) for tag in dict.fromkeys(query.tags_any)]
    nones = [keys.tag_index(tag, 0) for tag in dict.fromkeys(query.tags_none)]
    if alls:
        ordered = [key for _, key in sorted(alls)]
        return [(ordered[0], ordered[1:], anys, nones)]
    if anys:
        return [(key, [], [], [*anys[:n], *nones]) for n, key in enumerate(anys)]
    return None


def _scored(scans, source: str, desc: bool) -> list[tuple[float, str]]:
    """The members each scan keeps with their scores in ``source``, ordered as the sort index orders them."""
    scored = []
    for scanned, alls, anys, nones in scans:
        script_keys, cursor = [scanned, source, *alls, *anys, *nones], 0
        while True:
            args = [cursor, SCAN_STEP, len(alls), len(anys), len(nones)]
            cursor, ids, scores = run_script(_FILTERED, script_keys, args)
            scored += [(float(score), member) for member, score in zip(ids, scores) if score is not None]
            if not int(cursor):
                break
    scored.sort(key=lambda pair: (pair[0], pair[1].encode()), reverse=desc)
    return scored


def page(query: ProductQuery, typed: bool, fetched, source: str, fields: tuple[str, ...]) -> list | None:
    """The page of a list too large to count (one partition) read without building it, as ``_PAGE``
    answers: walked (``one_set``) or scanned from the sets' side (``several_sets``); None when neither."""
    if walked := one_set(query, typed, fetched.one_set(0)):
        return read(query, source, *walked, fields)
    if sets := several_sets(query, typed, fetched.sizes, fetched.one_set(0), fetched.matched.get(0, 0)):
        return read_filtered(query, source, sets, fields)
    return None


def read_filtered(query: ProductQuery, source: str, sets, fields: tuple[str, ...]) -> list:
    """The page of a list of several sets too large to count, as ``_PAGE`` answers (one partition), read
    from the sets' side (the scans of ``several_sets``): no intersection or union of whole sets is
    built, and no command reads more than a slice. Its total is exact (every member is tested)."""
    scored = _scored(sets, source, query.order.startswith("-"))
    page = [member for _, member in scored[query.offset : query.offset + query.limit]]
    pipe = client().pipeline(transaction=False)
    for product_id in page:
        pipe.hmget(keys.product(product_id), fields)
    pipe.zcard(keys.products(0))
    pipe.zrevrange(keys.tags(0), 0, gather.cloud_size() - 1, withscores=True)
    for slug in types.TYPES:
        pipe.scard(keys.type_index(slug, 0))
    replies = pipe.execute()
    rows, (catalog, cloud, *type_counts) = replies[: len(page)], replies[len(page) :]
    flat = [value for product_id, row in zip(page, rows) for value in (product_id, *row)]
    return [len(scored), flat, catalog, [value for pair in cloud for value in pair], [], *type_counts]


def read(query: ProductQuery, source: str, members: str, inside: bool, fields: tuple[str, ...]) -> list:
    """The page of ``members``'s products in ``source`` (``inside``), or of those outside it, as ``_PAGE``
    answers: walked a bounded call a round trip, or, when the set is smaller than what is left to walk,
    read from the set's side, then its rows."""
    desc = query.order.startswith("-")
    direction = "DESC" if desc else "ASC"
    gets = gather.gets(0, fields)
    script_keys = [source, keys.products(0), keys.tags(0), members]
    script_keys += [keys.type_index(slug, 0) for slug in types.TYPES]
    head = [query.offset, query.limit, direction, gather.cloud_size(), WALK_STEP, int(inside)]
    first = run_script(_WALKED_PAGE, script_keys, [*head, 0, 0, 1, *gets])
    done, walked, kept, flat = first[:4]
    listed, figures = first[4], first[5:]
    wanted = query.offset + query.limit
    while not done:
        left = (wanted - kept) * (walked / max(kept, 1) if kept else WALK_STEP)
        if inside and listed < left:
            page = [member for _, member in _scored([(members, [], [], [])], source, desc)[query.offset : wanted]]
            flat = [value for row in gather.fields_of(page, fields) for value in row]  # as SORT ... GET answers
            break
        done, walked, kept, more = run_script(_WALKED_PAGE, script_keys, [*head, walked, kept, 0, *gets])
        flat = [*flat, *more]
    catalog, cloud, *type_counts = figures
    return [listed, flat, catalog, cloud, [], *type_counts]
