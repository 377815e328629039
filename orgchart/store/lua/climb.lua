-- KEYS: the employees the walks start from. ARGV: one or two ids, each followed by how many ids to
-- walk. Flat, per id: the ids found (itself first, then its managers, nearest first) and the one
-- above the farthest ('' at the top). A further slice of a long walk up: ids only, no rows.
local out = {}
for i = 8, #ARGV, 2 do
  local chain, above = climb(ARGV[i], tonumber(ARGV[i + 1]) - 1)
  table.insert(chain, 1, ARGV[i])
  put_list(out, chain)
  out[#out + 1] = above
end
return out
