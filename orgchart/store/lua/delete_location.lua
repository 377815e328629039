-- KEYS: the location, its staff set, the name lookup, the name index, the event stream, its staff
-- name index, then the successor's hash, staff set and staff name index (when given). ARGV: id,
-- successor. The graph's half of a delete; its sensor data goes next (``forget_sensor``).
-- Replies {'ok', the name deleted}, {'missing', message} or a refusal.
local pk, succ = ARGV[8], ARGV[9]
local row = redis.call('HMGET', KEYS[1], 'name', 'folded')
if not row[1] then return missing('This location no longer exists.') end
if succ == pk then return refuse('successor', 'Pick another location for the staff.') end
local newname = ''
if succ ~= '' then
  newname = redis.call('HGET', KEYS[7], 'name')
  if not newname then return refuse('successor', 'There is no location #' .. succ .. '.') end
end
local members = redis.call('SMEMBERS', KEYS[2])
for _, m in ipairs(members) do
  redis.call('HSET', emp(m), 'location', succ, 'location_name', newname)
  redis.call('HINCRBY', emp(m), 'version', 1)
end
if succ ~= '' then
  each_chunk(members, function(part) redis.call('SADD', KEYS[8], unpack(part)) end)
  redis.call('ZUNIONSTORE', KEYS[9], 2, KEYS[9], KEYS[6])
end
redis.call('ZREM', KEYS[4], (row[2] or '') .. '\0' .. pk)
redis.call('HDEL', KEYS[3], row[2] or '')
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[6])
event(KEYS[5], 'deleted', 'location', pk, row[1], '')
return {'ok', row[1]}
