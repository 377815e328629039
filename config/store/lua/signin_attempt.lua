-- Sliding window over failed sign-ins (the key-value design notes), for a username from one
-- address and for the address whatever the username, each with its own limit (KEYS[i] is
-- limited by ARGV[3 + i]). Atomic, so concurrent attempts cannot overrun a limit: an attempt
-- takes its slot in both windows before the password is checked, and gives it back if the
-- password was right. A refused attempt takes no slot, so a window always empties in time.
local now, window, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local wait = 0
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if redis.call('ZCARD', key) >= tonumber(ARGV[3 + i]) then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + window - now)
  end
end
if wait > 0 then return wait end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window)
end
return 0
