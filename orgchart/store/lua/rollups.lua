-- KEYS: the rollup hashes, in slot order. Flat: each hash's count, sum, min and max (nil when the
-- bucket has no readings).
local out = {}
for i = 1, #KEYS do
  local row = redis.call('HMGET', KEYS[i], 'count', 'sum', 'min', 'max')
  for j = 1, 4 do out[#out + 1] = row[j] end
end
return out
