-- KEYS: the location name index. ARGV: how many. (id, name) of the first locations by name; each
-- name is read from the hash the index entry points to.
local out, nul = {}, string.char(0)
for _, entry in ipairs(redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[8]) - 1)) do
  local at = string.find(entry, nul, 1, true)
  local id = string.sub(entry, at + 1)
  local name = redis.call('HGET', L .. id, 'name')
  if name then out[#out + 1] = id; out[#out + 1] = name end
end
return out
