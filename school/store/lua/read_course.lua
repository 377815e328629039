-- A course's page in one command: the course, its instructors, one page of its roster (never
-- read whole), its live holds and their holders' names. Read only.
-- KEYS: the course, its instructors, its roster (a sorted set scored by student id), its holds index.
-- ARGV: now (ms), the roster page's offset and count, the most holds shown, then three groups of
--   SORT's GET options ('GET', '#', 'GET', <pattern>, ...: the patterns from keys.py), each
--   preceded by its length: an instructor's shown fields, a student's, a holder's name.
-- SORT with no BY orders the instructors' ids as numbers. The roster is kept in id order, so its page is
-- a range of ranks (log N plus the page), never the whole roster loaded and sorted: SORT BY nosort
-- LIMIT … GET of a roster already encoded as a skiplist (the joins in C); a compact one's ZRANGE joined
-- by rows_of, one HMGET a row, since SORT would turn its compact encoding into a skiplist for good.
-- Replies {the course's fields (HGETALL), the instructors' GET rows, the roster's size, the page's
--   GET rows, the live holds WITHSCORES (the first ones), how many are live, the holders' GET rows}.
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return {} end
-- Where each group's length is in ARGV; its options follow it.
local length1 = 5
local length2 = length1 + 1 + tonumber(ARGV[length1])
local length3 = length2 + 1 + tonumber(ARGV[length2])
local past = length3 + 1 + tonumber(ARGV[length3])
local now = ARGV[1]
local roster
if redis.call('OBJECT', 'ENCODING', KEYS[3]) == 'skiplist' then
  roster = sort(KEYS[3], 'BY', 'nosort', 'LIMIT', ARGV[2], ARGV[3], unpack(ARGV, length2 + 1, length3 - 1))
else
  local first, count, gets = tonumber(ARGV[2]), tonumber(ARGV[3]), {}
  for i = length2 + 2, length3 - 1, 2 do gets[#gets + 1] = ARGV[i] end  -- the patterns, each after its 'GET'
  roster = rows_of(count > 0 and redis.call('ZRANGE', KEYS[3], first, first + count - 1) or {}, gets)
end
return {
  fields,
  sort(KEYS[2], unpack(ARGV, length1 + 1, length2 - 1)),
  redis.call('ZCARD', KEYS[3]),
  roster,
  redis.call('ZRANGEBYSCORE', KEYS[4], now, '+inf', 'WITHSCORES', 'LIMIT', 0, ARGV[4]),
  redis.call('ZCOUNT', KEYS[4], now, '+inf'),
  -- bounded: every seat write prunes it
  sort(KEYS[4], 'BY', 'nosort', unpack(ARGV, length3 + 1, past - 1)),
}
