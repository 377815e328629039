-- Title prefix search, filtered, into a scratch sorted set scored like the list
-- index. KEYS: title index, scratch key, then one or more sorted indexes a post
-- must be in (the first gives the score). ARGV: the BYLEX range.
local matches = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2])
local found = 0
for _, member in ipairs(matches) do
  local id = string.match(member, '%z(%d+)$')
  local score = id and redis.call('ZSCORE', KEYS[3], id)
  for i = 4, #KEYS do
    if score and not redis.call('ZSCORE', KEYS[i], id) then score = false end
  end
  if score then
    redis.call('ZADD', KEYS[2], score, id)
    found = found + 1
  end
end
return found
