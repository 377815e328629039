"""A page of one set's products (or of those outside it) read by walking a sort index, not by
building the list: how a broad filter's page reads a few hundred ids where its intersection with the
sort index would build tens of thousands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catalog import keys, types
from catalog.store import gather
from catalog.store.prefetch import sets_of
from config.redis import client
from config.store.scripts import register, run_script
from config.store.sorting import SORT_LUA

if TYPE_CHECKING:
    from catalog.store.listing import ProductQuery

# A page of the products of one set (a tag, or a type in an order of another index), or of those outside
# it (one none-of tag), its chips counting the catalog (a list too large to count, ``LIVE_COUNT_LIMIT``):
# the sort index walked in order, 256 ids a window, each kept if the set holds it (or does not), until
# the page is full: a broad filter's first pages test a few hundred ids, where intersecting the sort
# index with the set (or taking the set from it) builds the whole list, a cost that grows with the set
# and the catalog, whatever the page. One call walks ``WALK_STEP`` ids at most and answers where it
# stopped, so no command holds Redis for longer as the catalog grows; ``read`` goes on from there in
# further calls, or reads the set itself when that is less to read (``_SCORES``). The total is the set's
# size (or the rest of the index): every product is in every sort index (the invariant "indexes
# agree"), which is why a type's own creation index is not walked.
# KEYS: the source, every product's index, the tag cloud, the set, then each type's set.
# ARGV: offset, count, ASC or DESC, the tag cloud's size, the ids to walk at most, "1" to keep the set's
# products or "0" those outside it, the index position to start at, the products kept before it, "1" for
# the list's figures, then the GET patterns.
# Answers 1 when the page is full or the index walked (else 0), the position reached, the products kept,
# the rows of the page's products found by this call; with the figures, the list's total, the catalog's
# size, the tag cloud and each type's count.
_WALKED_PAGE = register(
    SORT_LUA
    + """
local source, members = KEYS[1], KEYS[4]
local offset, count, budget, inside = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[5]), ARGV[6] == '1'
local walked, kept = tonumber(ARGV[7]), tonumber(ARGV[8])
local range = 'ZRANGE'
if ARGV[3] == 'DESC' then range = 'ZREVRANGE' end
local gets = {}
for i = 10, #ARGV do gets[#gets + 1] = ARGV[i] end
local size = redis.call('ZCARD', source)
local page, stop = {}, math.min(size, walked + budget)
while kept < offset + count and walked < stop do
  local batch = redis.call(range, source, walked, math.min(walked + 255, stop - 1))
  if #batch == 0 then break end
  for _, id in ipairs(batch) do
    walked = walked + 1
    if (redis.call('SISMEMBER', members, id) == 1) == inside then
      kept = kept + 1
      if kept > offset then page[#page + 1] = id end
      if kept == offset + count then break end
    end
  end
end
local done = 0
if kept >= offset + count or walked >= size then done = 1 end
local reply = {done, walked, kept, rows_of(page, gets)}
if ARGV[9] == '1' then
  local listed = redis.call('SCARD', members)
  if not inside then listed = size - listed end
  reply[5] = math.max(listed, 0)
  reply[6] = redis.call('ZCARD', KEYS[2])
  reply[7] = redis.call('ZREVRANGE', KEYS[3], 0, tonumber(ARGV[4]) - 1, 'WITHSCORES')
  for i = 5, #KEYS do reply[#reply + 1] = redis.call('SCARD', KEYS[i]) end
end
return reply
"""
)
WALK_STEP = 256  # ids of the sort index one call tests at most (a SISMEMBER each): bounds each command's time

# A slice of a set's members with their scores in the sort index: SSCAN, then ZMSCORE of what it gave.
# KEYS: the set, the sort index. ARGV: the SSCAN cursor, its COUNT. Answers the next cursor, the members
# and their scores (nil where the index lacks one).
_SCORES = register(
    """
local reply = redis.call('SSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
if #reply[2] == 0 then return {reply[1], {}, {}} end
return {reply[1], reply[2], redis.call('ZMSCORE', KEYS[2], unpack(reply[2]))}
"""
)
# Members of the set one call reads at most (SSCAN's COUNT; a small set comes whole), each tested against
# the other sets and scored: what one command holds Redis for, whatever the set's size.
SCAN_STEP = 64

# A slice of the smallest set a list of several filters keeps the products of, each member kept if every
# other all-of set holds it, one any-of set at least (when there are any) and no none-of set, with its
# score in the sort index (a member the index lacks, of another type than a type's own index, is dropped).
# KEYS: the set scanned, the sort index, the other all-of sets, the any-of sets, the none-of sets.
# ARGV: the SSCAN cursor, its COUNT, how many all-of, any-of and none-of sets follow. Answers the next
# cursor, the members kept and their scores.
_FILTERED = register(
    """
local reply = redis.call('SSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
local ids = reply[2]
local alls, anys, nones = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local function keep(key, wanted)
  if #ids == 0 then return end
  local held, kept = redis.call('SMISMEMBER', key, unpack(ids)), {}
  for n, one in ipairs(held) do
    if (one == 1) == wanted then kept[#kept + 1] = ids[n] end
  end
  ids = kept
end
for i = 3, 2 + alls do keep(KEYS[i], true) end
if anys > 0 and #ids > 0 then
  local any = {}
  for i = 3 + alls, 2 + alls + anys do
    local held = redis.call('SMISMEMBER', KEYS[i], unpack(ids))
    for n, one in ipairs(held) do
      if one == 1 then any[n] = true end
    end
  end
  local kept = {}
  for n, id in ipairs(ids) do
    if any[n] then kept[#kept + 1] = id end
  end
  ids = kept
end
for i = 3 + alls + anys, 2 + alls + anys + nones do keep(KEYS[i], false) end
if #ids == 0 then return {reply[1], {}, {}} end
return {reply[1], ids, redis.call('ZMSCORE', KEYS[2], unpack(ids))}
"""
)


def one_set(query: ProductQuery, typed: bool, matches: str = "") -> tuple[str, bool] | None:
    """The one set a filter keeps the products of (True) or drops them (False), when it is nothing more
    and its list is read from an index of every product (no second set, no type's own creation index:
    ``typed``): a tag, a type in an order of another column, one none-of tag, or a search whose matches
    are one set (``matches``, ``Prefetched.one_set``)."""
    if (query.q and not matches) or (query.tags_all and query.tags_any) or (query.type and typed):
        return None
    chosen = [(matches, True)] if matches else []
    chosen += [(key, True) for _, key in sets_of(query, 0)]
    chosen += [(keys.tag_index(tag, 0), False) for tag in dict.fromkeys(query.tags_none)]
    return chosen[0] if len(chosen) == 1 else None


def several_sets(query: ProductQuery, typed: bool, sizes: dict[str, int], matches: str, matched: int):
    """How to read a filter of several sets from the sets' side, when each is a plain set (the search's
    matches one set, ``Prefetched.one_set``): the scans to make, each (the set scanned, the other sets
    every product kept is in, the sets it is in one of at least, the sets it is in none of). With an
    all-of set, one scan of the smallest; with any-of sets alone, one scan of each, each leaving out
    what an earlier one kept, so the union is counted once. None for none-of sets alone (walked, or
    built as before)."""
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


def read_filtered(query: ProductQuery, source: str, sets, fields: tuple[str, ...]) -> list:
    """The page of a list of several sets too large to count, as ``_PAGE`` answers (one partition), read
    from the sets' side a slice a call (``_FILTERED``, the scans of ``several_sets``): no intersection or
    union of whole sets is built, and no
    command reads more than a slice, whatever the sets' sizes. Its total is exact (every member is
    tested); the members kept are ordered here as the sort index orders them, then the page's rows
    and the catalog's figures are read in one round trip."""
    scored = []
    for scanned, alls, anys, nones in sets:
        script_keys, cursor = [scanned, source, *alls, *anys, *nones], 0
        while True:
            args = [cursor, SCAN_STEP, len(alls), len(anys), len(nones)]
            cursor, ids, scores = run_script(_FILTERED, script_keys, args)
            scored += [(float(score), member) for member, score in zip(ids, scores) if score is not None]
            if not int(cursor):
                break
    scored.sort(key=lambda pair: (pair[0], pair[1].encode()), reverse=query.order.startswith("-"))
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
    """The page of ``members``'s products in ``source`` (``inside``), or of those outside it, as
    ``_PAGE`` answers (one partition): the walk's first call, in one round trip when it fills the page.
    Else the walk goes on, a bounded call a round trip, or, when the set is smaller than what is left
    to walk (its products come late in the order, or the page is deep), the set is read with its
    scores, a bounded slice a round trip, and ordered here; then the page's rows, one round trip."""
    desc = query.order.startswith("-")
    direction = "DESC" if desc else "ASC"
    gets = ["#", *(f"{keys.product_glob(0)}->{name}" for name in fields)]
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
            flat = _from_set(members, source, desc, query.offset, query.limit, fields)
            break
        done, walked, kept, more = run_script(_WALKED_PAGE, script_keys, [*head, walked, kept, 0, *gets])
        flat = [*flat, *more]
    catalog, cloud, *type_counts = figures
    return [listed, flat, catalog, cloud, [], *type_counts]


def _from_set(members: str, source: str, desc: bool, offset: int, limit: int, fields: tuple[str, ...]) -> list:
    """The page read from the set's side: its members with their scores, a slice a call, ordered as the
    sort index orders them (score, then member), then the page's rows (flat, as SORT ... GET answers)."""
    scored, cursor = [], 0
    while True:
        cursor, ids, scores = run_script(_SCORES, [members, source], [cursor, SCAN_STEP])
        scored += [(float(score), member) for member, score in zip(ids, scores) if score is not None]
        if not int(cursor):
            break
    scored.sort(key=lambda pair: (pair[0], pair[1].encode()), reverse=desc)
    page = [member for _, member in scored[offset : offset + limit]]
    return [value for row in gather.fields_of(page, fields) for value in row]
