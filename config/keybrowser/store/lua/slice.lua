-- key browser: a slice of a value, for a download
-- A slice of one hash field's value or of one stream entry's field's value: the client reads a
-- huge value a chunk a call, and no reply is larger than the chunk. KEYS: the key. ARGV: 'hash' and
-- the field, or 'entry', the entry's id and the field's index (0-based); the offset and the length
-- of the slice. Flat: the value's length and the slice; {-1} when there is no such value.
local value
if ARGV[1] == 'hash' then
  value = redis.call('HGET', KEYS[1], ARGV[2])
else
  local found = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2], 'COUNT', 1)
  if #found > 0 then value = found[1][2][tonumber(ARGV[3]) * 2 + 2] end
end
if not value then return {-1, ''} end
local from = tonumber(ARGV[4])
return {#value, string.sub(value, from + 1, from + tonumber(ARGV[5]))}
