-- KEYS: a location's staff name index. ARGV: offset, count. One page of its staff in name order,
-- flat: id and shown fields of each.
local out, nul = {}, string.char(0)
for _, entry in ipairs(redis.call('ZRANGE', KEYS[1], ARGV[8], tonumber(ARGV[8]) + tonumber(ARGV[9]) - 1)) do
  put_row(out, string.sub(entry, string.find(entry, nul, 1, true) + 1))
end
return out
