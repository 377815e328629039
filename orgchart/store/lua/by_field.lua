-- The whole list sorted by a field, names breaking ties. KEYS[1]: the lexical name index. ARGV: the most it may
-- hold, the employee hash pattern, the field, "1" for numbers, "1" for descending, offset, count. {-1} past the
-- most; else the count, then the page's ids.
local n = redis.call('ZCARD', KEYS[1])
if n > tonumber(ARGV[1]) then return {-1} end
local numeric, desc = ARGV[4] == '1', ARGV[5] == '1'
local rows = {}
for rank, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local id = string.match(member, '%z(%d+)$')
  local value = lookup(ARGV[2] .. '->' .. ARGV[3], id) or ''
  if numeric then value = tonumber(value) or 0 else value = string.lower(value) end
  rows[#rows + 1] = {id, value, rank}
end
table.sort(rows, function(a, b)
  if a[2] ~= b[2] then
    if desc then return a[2] > b[2] end
    return a[2] < b[2]
  end
  return a[3] < b[3]
end)
local reply, offset, count = {n}, tonumber(ARGV[6]), tonumber(ARGV[7])
for i = offset + 1, math.min(#rows, offset + count) do reply[#reply + 1] = rows[i][1] end
return reply
