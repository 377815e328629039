-- One page of a list in one command: the total and the page's ids from an index, each document's
-- shown fields and relation counts (SCARD, ZCARD of a roster), and (people) the count per schema
-- version. Read only.
-- KEYS: the index the page is read from (the id index, or the lexicographic one for the label
--   order and a prefix search), [the schema version counts].
-- ARGV: how ('id': members are ids; 'lex': members are '<label>\0<id>'; 'prefix': a ZRANGEBYLEX
--   of the lex index between ARGV[5] and ARGV[6]), offset, count, '1' for descending, low, high,
--   the number of fields, the fields, the document's key pattern, then each count's command (SCARD or
--   ZCARD) and key pattern.
-- The patterns come from keys.py with '*' for the id, as SORT … GET takes them: the script puts
--   each id of the page in place of '*' and names no other key, so a page reads only its rows.
-- Replies {the total, the rows (id, the fields, the counts, row after row), the version counts}.
local how, offset, count, desc = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local total, members
if how == 'prefix' then
  total = redis.call('ZLEXCOUNT', KEYS[1], ARGV[5], ARGV[6])
  if desc then
    members = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[6], ARGV[5], 'LIMIT', offset, count)
  else
    members = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[5], ARGV[6], 'LIMIT', offset, count)
  end
else
  total = redis.call('ZCARD', KEYS[1])
  members = redis.call(desc and 'ZREVRANGE' or 'ZRANGE', KEYS[1], offset, offset + count - 1)
end
local nfields = tonumber(ARGV[7])
local fields = {unpack(ARGV, 8, 7 + nfields)}
local doc = ARGV[8 + nfields]
local rows = {}
for _, member in ipairs(members) do
  local id = how == 'id' and member or string.match(member, '%z(%d+)$')
  rows[#rows + 1] = id
  local values = redis.call('HMGET', (doc:gsub('%*', id, 1)), unpack(fields))
  for i = 1, nfields do rows[#rows + 1] = values[i] end
  for i = 9 + nfields, #ARGV, 2 do
    rows[#rows + 1] = redis.call(ARGV[i], (ARGV[i + 1]:gsub('%*', id, 1)))
  end
end
local versions = KEYS[2] and redis.call('HGETALL', KEYS[2]) or {}
return {total, rows, versions}
