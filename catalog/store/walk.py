"""A page of one set's products (or of those outside it) read by walking a sort index, not by
building the list: how a broad filter's page reads a few hundred ids where its intersection with the
sort index would build tens of thousands."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from catalog import keys, types
from catalog.store import gather
from catalog.store.prefetch import sets_of
from config.store.scripts import register, run_script
from config.store.sorting import SORT_LUA

if TYPE_CHECKING:
    from catalog.store.listing import ProductQuery

# A page of the products of one set (a tag, or a type in an order of another index), or of those outside
# it (one none-of tag), its chips counting the catalog (a list too large to count, ``LIVE_COUNT_LIMIT``):
# the sort index walked in order, 256 ids a step, each kept if the set holds it (or does not), until the
# page is full: a broad filter's first pages test a few hundred ids, where intersecting the sort index
# with the set (or taking the set from it) builds the whole list, a cost that grows with the set and
# the catalog, whatever the page. A page the walk would not reach within
# ``WALK_BUDGET`` ids (a deep one: the list taken as spread evenly), or one it did not (a list whose
# products come late in the order), is read from that intersection (or difference), built in the
# scratch key and unlinked. The total is the set's size (or the rest of the index): every product is in
# every sort index (the invariant "indexes agree"), which is why a type's own creation index is not
# walked. The reply is ``listing._PAGE``'s, with no scores (one partition).
# KEYS: the source, every product's index, the tag cloud, the set, a scratch key, then each type's set.
# ARGV: offset, count, ASC or DESC, the tag cloud's size, the walk's budget, "1" to keep the set's
# products or "0" those outside it, then the GET patterns.
_WALKED_PAGE = register(
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
WALK_BUDGET = 10_000  # ids of the sort index a walked page tests at most: bounds the script's time


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


def read(query: ProductQuery, source: str, members: str, inside: bool, gets: list[str]) -> list:
    """The page of ``members``'s products in ``source`` (``inside``), or of those outside it, as
    ``_PAGE`` answers: one script, one partition."""
    direction = "DESC" if query.order.startswith("-") else "ASC"
    scratch = keys.temp(secrets.token_hex(8), 0)
    script_keys = [source, keys.products(0), keys.tags(0), members, scratch]
    script_keys += [keys.type_index(slug, 0) for slug in types.TYPES]
    args = [query.offset, query.limit, direction, gather.cloud_size(), WALK_BUDGET, int(inside), *gets]
    return run_script(_WALKED_PAGE, script_keys, args)
