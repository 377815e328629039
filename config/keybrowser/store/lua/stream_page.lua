-- A page of a stream, newest first. KEYS: the stream. ARGV: where the page starts (XREVRANGE's
-- max), the entries a page holds, the bytes read after which the page stops, then the cuts of
-- put_entry: a name's bytes, the fields of an entry, a value's bytes, an entry's bytes of values.
-- Flat: 1 when the stream may go on past the page (else 0), then each entry as put_entry puts it.
-- One entry is read at a time: a page of huge entries stops after the budget, not after fifty.
local out, max, read = {0}, ARGV[1], 0
local name, fields, cut, budget = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
for n = 1, tonumber(ARGV[2]) do
  local found = redis.call('XREVRANGE', KEYS[1], max, '-', 'COUNT', 1)
  if #found == 0 then return out end
  read = read + put_entry(out, found[1], 0, fields, cut, budget, name)
  max = '(' .. found[1][1]
  if read >= tonumber(ARGV[3]) then break end
end
out[1] = 1
return out
