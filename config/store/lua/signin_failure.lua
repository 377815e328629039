-- A failed sign-in (wrong password, or refused by the limit): listed for the administrators, and when
-- it is the one that fills the window of the username from its address, the lock-out goes to the
-- activity stream, in the same script.
local entry, kept, limit, maxlen = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('LPUSH', KEYS[2], entry)
redis.call('LTRIM', KEYS[2], 0, kept - 1)
if ARGV[5] == '1' and redis.call('ZCARD', KEYS[1]) == limit then
  redis.call('XADD', KEYS[3], 'MAXLEN', maxlen, '*', unpack(ARGV, 6))
  return 1
end
return 0
