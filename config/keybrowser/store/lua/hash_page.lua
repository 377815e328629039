-- key browser: a page of a hash, values cut
-- HSCAN from a cursor, each name and value cut before it leaves Redis, so fifty huge values make a
-- small reply. KEYS: the hash. ARGV: the cursor, the COUNT hint, a name's bytes shown, a value's
-- bytes shown. Flat: the next cursor, then each field's name (cut), its length, its value (cut)
-- and its length.
local found = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
local out, flat = {found[1]}, found[2]
local name, value = tonumber(ARGV[3]), tonumber(ARGV[4])
for i = 1, #flat, 2 do
  out[#out + 1] = string.sub(flat[i], 1, name)
  out[#out + 1] = #flat[i]
  out[#out + 1] = string.sub(flat[i + 1], 1, value)
  out[#out + 1] = #flat[i + 1]
end
return out
