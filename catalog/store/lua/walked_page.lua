-- A page of the products of one set (a tag, or a type in an order of another index), or of those outside
-- it (one none-of tag), its chips counting the catalog (a list too large to count, ``LIVE_COUNT_LIMIT``):
-- the sort index walked in order, 256 ids a window, each kept if the set holds it (or does not), until
-- the page is full: a broad filter's first pages test a few hundred ids, where intersecting the sort
-- index with the set (or taking the set from it) builds the whole list, a cost that grows with the set
-- and the catalog, whatever the page. One call walks at most the ids it is given and answers where it
-- stopped, so no command holds Redis for longer as the catalog grows; the caller goes on from there in
-- further calls, or reads the set itself when that is less to read. The total is the set's size (or the
-- rest of the index): every product is in every sort index (the invariant "indexes agree"), which is
-- why a type's own creation index is not walked. Sent after config.store.sorting's SORT_LUA.
-- KEYS: the source, every product's index, the tag cloud, the set, then each type's set.
-- ARGV: offset, count, ASC or DESC, the tag cloud's size, the ids to walk at most, "1" to keep the set's
-- products or "0" those outside it, the index position to start at, the products kept before it, "1" for
-- the list's figures, then the GET patterns.
-- Replies 1 when the page is full or the index walked (else 0), the position reached, the products kept,
-- the rows of the page's products found by this call; with the figures, the list's total, the catalog's
-- size, the tag cloud and each type's count.
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
