-- KEYS: a lexical name index (``folded name\0id`` members). ARGV: low, high (ZRANGEBYLEX bounds),
-- offset, count, '1' for descending, what each row reads: 'employee' (the summary fields) or
-- 'location' (the name and the head count). Flat: the count in range, then one page of rows (id
-- and fields each): the list's index and its rows in one round trip. The range's first member's rank
-- (all share score 0) turns the page into a range of ranks: ZRANGEBYLEX … LIMIT offset would step over
-- every member before the page, a deep page of a large org tens of thousands of them in one command.
local low, high, offset, count = ARGV[8], ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
local total = redis.call('ZLEXCOUNT', KEYS[1], low, high)
local members = {}
if total > offset and count > 0 then
  local first = 0
  if low ~= '-' then
    first = redis.call('ZRANK', KEYS[1], redis.call('ZRANGEBYLEX', KEYS[1], low, high, 'LIMIT', 0, 1)[1])
  end
  local last = first + total - 1
  if ARGV[12] == '1' then
    members = redis.call('ZRANGE', KEYS[1], math.max(last - offset - count + 1, first), last - offset)
    for i = 1, math.floor(#members / 2) do
      members[i], members[#members + 1 - i] = members[#members + 1 - i], members[i]
    end
  else
    members = redis.call('ZRANGE', KEYS[1], first + offset, math.min(first + offset + count, last + 1) - 1)
  end
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
