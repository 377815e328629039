-- KEYS: the name index, the name lookup, then four per person: the employee's hash, the set its
-- REPORTS_TO edge joins (its manager's report set, or the roots), its location's staff set and
-- staff name index (the employee's hash again when it has no location). ARGV: how many people,
-- how many hash fields, their names, then per person its id, folded name, '1' when it has a
-- location, and the hash's values. The bulk write of an import into an empty org chart: each call
-- writes a bounded number of people (``BULK_PEOPLE``), many calls go out per round trip.
local n, f = tonumber(ARGV[8]), tonumber(ARGV[9])
local names = {}
for i = 1, f do names[i] = ARGV[9 + i] end
local a, k, nul = 10 + f, 4, string.char(0)
for _ = 1, n do
  local pk, folded, placed = ARGV[a], ARGV[a + 1], ARGV[a + 2] == '1'
  local fields = {}
  for i = 1, f do fields[2 * i - 1] = names[i]; fields[2 * i] = ARGV[a + 2 + i] end
  redis.call('HSET', KEYS[k], unpack(fields))
  redis.call('SADD', KEYS[k + 1], pk)
  if placed then
    redis.call('SADD', KEYS[k + 2], pk)
    redis.call('ZADD', KEYS[k + 3], 0, folded .. nul .. pk)
  end
  redis.call('ZADD', KEYS[1], 0, folded .. nul .. pk)
  redis.call('HSET', KEYS[2], folded, pk)
  a, k = a + 3 + f, k + 4
end
return n
