-- KEYS: a lexical name index (``folded name\0id`` members). ARGV: low, high (ZRANGEBYLEX bounds),
-- offset, count, '1' for descending, what each row reads: 'employee' (the summary fields) or
-- 'location' (the name and the head count). Flat: the count in range, then one page of rows (id
-- and fields each): the list's index and its rows in one round trip.
local low, high, offset, count = ARGV[8], ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
local total = redis.call('ZLEXCOUNT', KEYS[1], low, high)
local members
if ARGV[12] == '1' then
  members = redis.call('ZREVRANGEBYLEX', KEYS[1], high, low, 'LIMIT', offset, count)
else
  members = redis.call('ZRANGEBYLEX', KEYS[1], low, high, 'LIMIT', offset, count)
end
local out, nul = {total}, string.char(0)
for _, entry in ipairs(members) do
  local id = string.sub(entry, string.find(entry, nul, 1, true) + 1)
  if ARGV[13] == 'employee' then
    put_row(out, id)
  else
    out[#out + 1] = id
    out[#out + 1] = redis.call('HGET', L .. id, 'name')
    out[#out + 1] = redis.call('SCARD', staff(id))
  end
end
return out
