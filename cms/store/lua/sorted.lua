-- A filtered or searched list sorted by a field (after config.store.sorting's sort). KEYS[1]: the posts
-- (a sorted set). ARGV[1]: the most it may hold; ARGV[2...]: SORT's options. {-1} when it holds more,
-- else SORT's reply.
if redis.call('ZCARD', KEYS[1]) > tonumber(ARGV[1]) then return {-1} end
return sort(KEYS[1], unpack(ARGV, 2))
