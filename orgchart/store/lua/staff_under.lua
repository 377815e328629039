-- KEYS: the manager, the location's staff set. ARGV: manager id, budget, rows shown. Everyone below
-- the manager who works there, flat: how many were found, whether the budget cut the walk, the
-- first rows.
local lists, walked = down({ARGV[8]}, 0, 1000000, tonumber(ARGV[9]), tonumber(ARGV[11]))
local found = {}
for _, list in ipairs(lists) do
  for i = 1, #list, 1000 do
    local part = {unpack(list, i, math.min(i + 999, #list))}
    for j, here in ipairs(redis.call('SMISMEMBER', KEYS[2], unpack(part))) do
      if here == 1 then found[#found + 1] = part[j] end
    end
  end
end
found = by_id(found)
local out = {#found, cut({ARGV[8]}, lists, walked, 0, 1000000) and 1 or 0}
put_rows(out, found, tonumber(ARGV[10]))
return out
