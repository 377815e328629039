-- The whole list by title (after config.store.sorting's rows_of): a page of the title index
-- (``folded title\0id``, in title order), each row's fields. KEYS[1]: the title index.
-- ARGV: offset, count, "1" for descending, then the GET patterns.
local offset, count = tonumber(ARGV[1]), tonumber(ARGV[2])
local range = 'ZRANGE'
if ARGV[3] == '1' then range = 'ZREVRANGE' end
local ids = {}
for i, member in ipairs(redis.call(range, KEYS[1], offset, offset + count - 1)) do
  ids[i] = string.match(member, '%z(%d+)$')
end
return rows_of(ids, {unpack(ARGV, 4)})
