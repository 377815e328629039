-- A bounded read of a set of candidates with each one's field. KEYS[1]: the set. ARGV[1]: how many to read
-- at most; ARGV[2]: the field of a candidate's hash, as SORT's GET names it (``prefix*->field``). Flat: each
-- id, then its field. SSCAN walks the set a step at a time and stops once it has as many as asked, so the
-- ids visited stay near ARGV[1] whatever the set's size (a small set, kept as one compact array, comes
-- whole: 512 ids at most, set-max-intset-entries), and a field is read for ARGV[1] of them at most.
-- SORT ... LIMIT would read the whole set first: a piece of one character is in nearly every name.
local want, cursor, out, seen, found = tonumber(ARGV[1]), '0', {}, {}, 0
local star = string.find(ARGV[2], '*', 1, true)
local arrow = string.find(ARGV[2], '->', star, true)
local head, tail = string.sub(ARGV[2], 1, star - 1), string.sub(ARGV[2], star + 1, arrow - 1)
local field = string.sub(ARGV[2], arrow + 2)
repeat
  local reply = redis.call('SSCAN', KEYS[1], cursor, 'COUNT', want)
  cursor = reply[1]
  for _, id in ipairs(reply[2]) do
    if found < want and not seen[id] then
      seen[id], found = true, found + 1
      out[#out + 1] = id
      out[#out + 1] = redis.call('HGET', head .. id .. tail, field)
    end
  end
until cursor == '0' or found >= want
return out
