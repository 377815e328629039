-- A course's page in one command: the course, its instructors, one page of its roster (never
-- read whole), its live holds and their holders' names. Read only.
-- KEYS: the course, its instructors, its roster, its holds index.
-- ARGV: now (ms), the roster page's offset and count, the most holds shown, then three groups of
--   SORT … GET patterns (from keys.py), each preceded by its size: an instructor's shown fields,
--   a student's shown fields, a holder's name.
-- SORT with no BY orders ids as numbers: instructors and the roster by id.
-- Replies {the course's fields (HGETALL), the instructors' GET rows, the roster's size, the page's
--   GET rows, the live holds WITHSCORES (the first ones), how many are live, the holders' GET rows}.
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return {} end
local groups, at = {}, 5
for g = 1, 3 do
  local get = {}
  for i = at + 1, at + tonumber(ARGV[at]) do
    get[#get + 1] = 'GET'
    get[#get + 1] = ARGV[i]
  end
  groups[g] = get
  at = at + tonumber(ARGV[at]) + 1
end
local now = ARGV[1]
return {
  fields,
  redis.call('SORT', KEYS[2], unpack(groups[1])),
  redis.call('SCARD', KEYS[3]),
  redis.call('SORT', KEYS[3], 'LIMIT', ARGV[2], ARGV[3], unpack(groups[2])),
  redis.call('ZRANGEBYSCORE', KEYS[4], now, '+inf', 'WITHSCORES', 'LIMIT', 0, ARGV[4]),
  redis.call('ZCOUNT', KEYS[4], now, '+inf'),
  redis.call('SORT', KEYS[4], 'BY', 'nosort', unpack(groups[3])),  -- bounded: every seat write prunes it
}
