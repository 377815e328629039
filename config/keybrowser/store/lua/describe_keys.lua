-- key browser: describe keys
-- Everything a list shows of each key, in one command whatever the type and the number of keys:
-- type, length, PTTL, encoding, memory for each key in turn ("none", -1, -2 and nil for a missing
-- one), then DBSIZE when ARGV[1] is "1". One flat array: Redis 6.2 writes each nested table of a
-- script's reply to the socket by a write() of its own, and the client reads them by as many
-- recv() calls. A script runs alone, so a key TYPE found stays until its last read (OBJECT and
-- MEMORY cannot meet a missing key). A Lua array stops at its first nil, so a missing reply
-- travels as false (a nil reply).
local lengths = {string = 'STRLEN', hash = 'HLEN', list = 'LLEN', set = 'SCARD', zset = 'ZCARD', stream = 'XLEN'}
local out = {}
-- On one server the keys are KEYS; on a cluster they are one node's keys of many slots, given after the
-- flag in ARGV (a script's KEYS must share one slot, while its commands may read any key of its node).
local names = KEYS
if #KEYS == 0 then names = {unpack(ARGV, 2)} end
for i, key in ipairs(names) do
  local t, at = redis.call('TYPE', key)['ok'], (i - 1) * 5
  out[at + 1], out[at + 2], out[at + 3], out[at + 4], out[at + 5] = t, -1, -2, false, false
  if t ~= 'none' then
    if lengths[t] then out[at + 2] = redis.call(lengths[t], key) end
    out[at + 3] = redis.call('PTTL', key)
    out[at + 4] = redis.call('OBJECT', 'ENCODING', key)
    out[at + 5] = redis.call('MEMORY', 'USAGE', key)
  end
end
if ARGV[1] == '1' then out[#names * 5 + 1] = redis.call('DBSIZE') end
return out
