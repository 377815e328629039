-- One entry's page of fields. KEYS: the stream. ARGV: the entry's id, the first field (0-based), the
-- fields a page holds, a name's bytes shown, a value's bytes shown. Flat: the entry as put_entry
-- puts it; empty when there is no such entry.
local found = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1], 'COUNT', 1)
if #found == 0 then return {} end
local out = {}
put_entry(out, found[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5]), 2 ^ 52, tonumber(ARGV[4]))
return out
