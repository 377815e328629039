-- The whole list by status (after config.store.sorting's rows_of): the drafts then the published posts
-- (descending: the other way), each status newest save first. KEYS: the first status's index, the
-- second's. ARGV: offset, count, GET patterns.
local offset, count = tonumber(ARGV[1]), tonumber(ARGV[2])
local first = redis.call('ZCARD', KEYS[1])
local ids = {}
if offset < first then ids = redis.call('ZREVRANGE', KEYS[1], offset, math.min(first, offset + count) - 1) end
local left = count - #ids
if left > 0 then
  local from = math.max(0, offset - first)
  for _, id in ipairs(redis.call('ZREVRANGE', KEYS[2], from, from + left - 1)) do ids[#ids + 1] = id end
end
return rows_of(ids, {unpack(ARGV, 3)})
