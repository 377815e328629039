-- The bulk writer of the seeder and the import: one batch of new documents or pairs, written
-- without per-item checks (the seeder chooses what it writes; the import checked the batch's
-- bounds first). Every key is in KEYS; args names them by position. Each list holds one command:
--   args.hset    {k, field, value, field, value ...}   HSET KEYS[k] ...
--   args.zadd    {k, score, member, score, member ...} ZADD KEYS[k] ...
--   args.sadd    {k, member, member ...}               SADD KEYS[k] ...
--   args.hincrby {k, field, n}                         HINCRBY KEYS[k] field n
--   args.set     {k, value}                            SET KEYS[k] value
-- Replies with the number of commands it ran.
local ran = 0
local function each(name, command)
  for _, c in ipairs(args[name] or {}) do
    redis.call(command, KEYS[c[1]], unpack(c, 2))
    ran = ran + 1
  end
end
each('hset', 'HSET')
each('zadd', 'ZADD')
each('sadd', 'SADD')
each('hincrby', 'HINCRBY')
each('set', 'SET')
return ran
