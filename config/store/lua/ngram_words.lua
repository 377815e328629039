-- The kept words holding each of a query's words (``queue_vocabulary``).
-- KEYS[1]: the vocabulary; KEYS[2]: the set of names with a word too long to keep. ARGV[1]: the prefix of a
-- word's set; ARGV[2]: the most words a query word may be inside; ARGV[3...]: the query's words of four
-- characters or more. The number of names with a long word, then for each query word the flat list of
-- (word, size of its set) for every kept word holding it; -1 for one inside more words than the limit.
local limit = tonumber(ARGV[2])
local reply = {redis.call('SCARD', KEYS[2])}
for i = 3, #ARGV do
  local low = '[' .. ARGV[i]
  local entries = redis.call('ZRANGEBYLEX', KEYS[1], low, low .. '\255', 'LIMIT', 0, limit + 1)
  local found, seen = {}, {}
  for _, entry in ipairs(entries) do
    local word = string.sub(entry, string.find(entry, '\0', 1, true) + 1)
    if not seen[word] then
      seen[word] = true
      found[#found + 1] = word
      found[#found + 1] = redis.call('SCARD', ARGV[1] .. word)
    end
  end
  if #entries > limit then found = -1 end
  reply[#reply + 1] = found
end
return reply
