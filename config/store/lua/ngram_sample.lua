-- A slice of a bounded read of a set of candidates with each one's field. KEYS[1]: the set. ARGV: the SSCAN
-- cursor to go on from, the candidates this call reads at most, "1" to unlink the set once read (a search's
-- scratch set), how many are still wanted, and the field of a candidate's hash as SORT's GET names it
-- (``prefix*->field``). The next cursor ('0' at the set's end), how many ids follow unread, those ids, then
-- each id read and its field. Whole SSCAN steps are taken, cut only once as many as wanted are found, so a
-- next call skips none; so a call visits about ARGV[2] ids, and the caller calls again until it has as many
-- as it wants: no one command reads a piece of one character's whole set of a large collection, nor a
-- thousand names. A small set, kept as one compact array, comes whole (512 ids at most,
-- set-max-intset-entries): past ARGV[2] fields read, its ids come unread, for the caller to read apart.
-- SORT ... LIMIT would read the whole set.
local cursor, most, want, found = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4]), 0
local star = string.find(ARGV[5], '*', 1, true)
local arrow = string.find(ARGV[5], '->', star, true)
local head, tail = string.sub(ARGV[5], 1, star - 1), string.sub(ARGV[5], star + 1, arrow - 1)
local field = string.sub(ARGV[5], arrow + 2)
local read, unread = {}, {}
repeat
  local reply = redis.call('SSCAN', KEYS[1], cursor, 'COUNT', math.min(most, want))
  cursor = reply[1]
  for _, id in ipairs(reply[2]) do
    if found < want then
      found = found + 1
      if #read < 2 * most then
        read[#read + 1] = id
        read[#read + 1] = redis.call('HGET', head .. id .. tail, field)
      else
        unread[#unread + 1] = id
      end
    end
  end
until cursor == '0' or found >= math.min(most, want)
if ARGV[3] == '1' and (cursor == '0' or found >= want) then redis.call('UNLINK', KEYS[1]) end
local out = {cursor, #unread}
for _, id in ipairs(unread) do out[#out + 1] = id end
for _, value in ipairs(read) do out[#out + 1] = value end
return out
