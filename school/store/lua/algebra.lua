-- The set algebra screen in one command: SINTERSTORE / SUNIONSTORE / SDIFFSTORE of the rosters into
-- a key that expires, one page of it joined with its students' fields, and each course's shown
-- fields with its roster's size.
-- KEYS: the result key, the n rosters, the n courses (in the same order).
-- ARGV: the command (SINTERSTORE, SUNIONSTORE or SDIFFSTORE), the result's time to live (s), the
--   page's offset and count, the number of a course's fields shown, those fields, then SORT's GET
--   options for a student ('GET', '#', 'GET', <pattern>, ...: the patterns from keys.py).
-- SORT with no BY orders the students by id.
-- Replies {the result's size, the page's GET rows, then per course its fields and its roster's size}.
local n = (#KEYS - 1) / 2
local rosters = {unpack(KEYS, 2, n + 1)}
local total = redis.call(ARGV[1], KEYS[1], unpack(rosters))
redis.call('EXPIRE', KEYS[1], ARGV[2])
local nfields = tonumber(ARGV[5])
local fields = {unpack(ARGV, 6, 5 + nfields)}
local found = {total, sort(KEYS[1], 'LIMIT', ARGV[3], ARGV[4], unpack(ARGV, 6 + nfields))}
for i = 1, n do
  found[#found + 1] = redis.call('HMGET', KEYS[n + 1 + i], unpack(fields))
  found[#found + 1] = redis.call('SCARD', rosters[i])
end
return found
