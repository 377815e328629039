-- A page read from one sorted set, with no set algebra: the total, the page joined to its fields
-- (SORT ... BY nosort keeps the sorted set's order and applies the page as a range), the catalog's
-- size, the tag cloud, the page's scores when asked (for the merge of several partitions) and each
-- type's count. Sent after config.store.sorting's SORT_LUA, whose ``sort`` it calls.
-- KEYS: the source, every product's index, the tag cloud, then each type's set.
-- ARGV: offset, count (1 or more), ASC or DESC, the tag cloud's size (0: all), "0" for the rows, "1" for
-- the rows and their scores, "2" for the scores alone (the ids with them), then the GET patterns.
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
