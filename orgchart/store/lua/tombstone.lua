-- KEYS: a location's sensor's latest hash. ARGV: now. The sensor data's half of a delete begins, in
-- its own slot: the latest hash emptied to its tombstone (``deleted``; the ingest writes nothing for
-- a tombstoned sensor), answering the first and last reading it held, which name the buckets.
local latest = redis.call('HMGET', KEYS[1], 'first', 'ts')
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'deleted', ARGV[8])
return {latest[1] or '', latest[2] or ''}
