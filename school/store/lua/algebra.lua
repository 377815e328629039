-- The set algebra screen in one command: ZINTERSTORE / ZUNIONSTORE / ZDIFFSTORE of the rosters into
-- a key that expires, one page of it joined with its students' fields, and each course's shown
-- fields with its roster's size.
-- KEYS: the result key, the n rosters, the n courses (in the same order).
-- ARGV: the command (ZINTERSTORE, ZUNIONSTORE or ZDIFFSTORE), the result's time to live (s), the
--   page's offset and count, the number of a course's fields shown, those fields, then SORT's GET
--   options for a student ('GET', '#', 'GET', <pattern>, ...: the patterns from keys.py).
-- A roster scores each student by id; AGGREGATE MIN keeps that score in an intersection or a union
-- (a difference keeps the first roster's), so the result is in id order too and its page is a ZRANGE
-- of ranks, never the result sorted whole, joined by rows_of as SORT's GET would.
-- Replies {the result's size, the page's GET rows, then per course its fields and its roster's size}.
local n = (#KEYS - 1) / 2
local rosters = {unpack(KEYS, 2, n + 1)}
local command = {ARGV[1], KEYS[1], n, unpack(rosters)}
if ARGV[1] ~= 'ZDIFFSTORE' then
  command[#command + 1] = 'AGGREGATE'
  command[#command + 1] = 'MIN'
end
local total = redis.call(unpack(command))
redis.call('EXPIRE', KEYS[1], ARGV[2])
local nfields = tonumber(ARGV[5])
local fields = {unpack(ARGV, 6, 5 + nfields)}
local gets = {}
for i = 7 + nfields, #ARGV, 2 do gets[#gets + 1] = ARGV[i] end
local first, count = tonumber(ARGV[3]), tonumber(ARGV[4])
local page = count > 0 and redis.call('ZRANGE', KEYS[1], first, first + count - 1) or {}
local found = {total, rows_of(page, gets)}
for i = 1, n do
  found[#found + 1] = redis.call('HMGET', KEYS[n + 1 + i], unpack(fields))
  found[#found + 1] = redis.call('ZCARD', rosters[i])
end
return found
