-- KEYS: both employees. ARGV: both ids, how many managers to walk up from each, rows shown at each
-- end. Flat: 0 when one is missing, else 1; then per employee the ids walked from it (itself
-- first) and the manager above the farthest ('' at the top); then the rows of the first ids walked
-- from each (the ends of the path a page shows); then the row of the lowest manager the two walks
-- share, when they meet (none otherwise).
local a, b, limit, shown = ARGV[8], ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 0 then return {0} end
local ua, above_a = climb(a, limit)
local ub, above_b = climb(b, limit)
table.insert(ua, 1, a)
table.insert(ub, 1, b)
local out, at = {1}, {}
put_list(out, ua)
out[#out + 1] = above_a
put_list(out, ub)
out[#out + 1] = above_b
put_rows(out, ua, shown)
put_rows(out, ub, shown)
for _, id in ipairs(ub) do at[id] = true end
local common = {}
for _, id in ipairs(ua) do
  if at[id] then common = {id} break end
end
put_rows(out, common)
return out
