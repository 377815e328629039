-- KEYS: the location, its staff set, the name lookup, the name index, the event stream.
-- ARGV: id, '1' when creating, name, folded name, the version the edit was made on ('' for a new
-- location, or to write whatever is stored). A rename rewrites the name copied onto its staff.
-- Replies {'ok', id}; or, nothing written, {'missing', message} when the location renamed no longer
-- exists, {'conflict', the stored hash's fields and values} when it is at another version.
local pk, creating, name, folded = ARGV[8], ARGV[9] == '1', ARGV[10], ARGV[11]
local old = redis.call('HMGET', KEYS[1], 'name', 'folded', 'version')
if not creating and not old[1] then return missing('This location no longer exists.') end
if ARGV[12] ~= '' and (old[3] or '0') ~= ARGV[12] then return conflict(KEYS[1]) end
local owner = redis.call('HGET', KEYS[3], folded)
if owner and owner ~= pk then
  return refuse('name', 'Another location (#' .. owner .. ") is already called '" .. name .. "'.")
end
redis.call('HSET', KEYS[1], 'schema', '2', 'name', name, 'folded', folded)
redis.call('HINCRBY', KEYS[1], 'version', 1)
index_name(KEYS[4], KEYS[3], old[2], folded, pk)
if old[1] and old[1] ~= name then
  for _, m in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('HSET', emp(m), 'location_name', name) end
end
event(KEYS[5], creating and 'created' or 'updated', 'location', pk, name, ARGV[7])
return {'ok', pk}
