-- The bulk writer of the seeder and the import: one batch of new documents or pairs, written
-- without per-item checks (the seeder chooses what it writes; the import checked the batch's
-- bounds first). Every key is in KEYS. ARGV is the batch's commands one after the other, each
-- as: its letter (h HSET, z ZADD, s SADD, i HINCRBY, t SET, x XADD), the position of its key in KEYS,
-- the number of its arguments, then those arguments. Run here as they come, without copying.
-- Replies with the number of commands it ran. (Not prepended with lib.lua: no JSON argument.)
local names = {h = 'HSET', z = 'ZADD', s = 'SADD', i = 'HINCRBY', t = 'SET', x = 'XADD'}
local i, last, ran = 1, #ARGV, 0
while i <= last do
  local count = tonumber(ARGV[i + 2])
  redis.call(names[ARGV[i]], KEYS[tonumber(ARGV[i + 1])], unpack(ARGV, i + 3, i + 2 + count))
  i = i + 3 + count
  ran = ran + 1
end
return ran
