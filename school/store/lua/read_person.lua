-- A person's page in one command: the document, their courses and (a student's) live holds.
-- Read only. KEYS: the person, their course set, [their holds index].
-- ARGV: now (ms), then SORT's GET options for a course as a person's page lists it ('GET', '#',
--   'GET', <pattern>, ...: the patterns from keys.py), passed through as they come.
-- SORT with no BY orders the course ids as numbers: the page's order, by id.
-- Replies {the person's fields (HGETALL), the courses' GET rows, [live holds WITHSCORES, their courses' rows]}.
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return {} end
local found = {fields, sort(KEYS[2], unpack(ARGV, 2))}
if KEYS[3] then
  found[3] = redis.call('ZRANGEBYSCORE', KEYS[3], ARGV[1], '+inf', 'WITHSCORES')
  found[4] = sort(KEYS[3], unpack(ARGV, 2))  -- bounded: every seat write prunes it
end
return found
