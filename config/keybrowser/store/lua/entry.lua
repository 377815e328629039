-- key browser: stream entries, cut
-- One entry's fields from `from` (0-based), at most `most` of them and `budget` bytes of their
-- values (each cut to `cut`, each name to `name_cut`), flat: its id, how many fields it has, its bytes
-- (names and values), the index of the first field shown, how many are shown, then each shown
-- field's name (cut), the name's length, its value (cut) and the value's length. Returns the
-- entry's bytes.
local function put_entry(out, entry, from, most, cut, budget, name_cut)
  local id, flat = entry[1], entry[2]
  local size = 0
  for i = 1, #flat do size = size + #flat[i] end
  out[#out + 1] = id
  out[#out + 1] = #flat / 2
  out[#out + 1] = size
  out[#out + 1] = from
  local at = #out + 1
  out[at] = 0
  local i, shown = from * 2 + 1, 0
  while i < #flat and shown < most and budget > 0 do
    local name, value = flat[i], flat[i + 1]
    local take = math.min(#value, cut, budget)
    out[#out + 1] = string.sub(name, 1, name_cut)
    out[#out + 1] = #name
    out[#out + 1] = string.sub(value, 1, take)
    out[#out + 1] = #value
    budget = budget - take
    shown = shown + 1
    i = i + 2
  end
  out[at] = shown
  return size
end
