-- key browser: count a prefix by segment
-- SCAN under one prefix, counting keys by their next ':' segment, so a tree node costs one round
-- trip and ships counts, not key names. Reply, flat: cursor, steps, keys seen, keys past the
-- ARGV[6] children counted, then each child and its count.
local cursor, prefix, match = ARGV[1], ARGV[2], ARGV[3]
local steps, count, most = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local counts, order, others, done, seen = {}, {}, 0, 0, 0
repeat
  local reply = redis.call('SCAN', cursor, 'MATCH', match, 'COUNT', count)
  cursor, done = reply[1], done + 1
  for _, key in ipairs(reply[2]) do
    local shown = true
    for i = 7, #ARGV do
      if string.sub(key, 1, #ARGV[i]) == ARGV[i] then shown = false break end
    end
    if shown then
      seen = seen + 1
      local rest = string.sub(key, #prefix + 1)
      local sep = string.find(rest, ':', 1, true)
      local child = sep and string.sub(rest, 1, sep) or rest
      if counts[child] then
        counts[child] = counts[child] + 1
      elseif #order < most then
        order[#order + 1] = child
        counts[child] = 1
      else
        others = others + 1
      end
    end
  end
until cursor == '0' or done >= steps
local flat = {cursor, done, seen, others}
for _, child in ipairs(order) do
  flat[#flat + 1] = child
  flat[#flat + 1] = counts[child]
end
return flat
