-- KEYS: the name lookup, the id counter. ARGV: folded name, name. Draws an id for a new location
-- only when the name is free: {'ok', the id}.
local owner = redis.call('HGET', KEYS[1], ARGV[8])
if owner then return refuse('name', 'Another location (#' .. owner .. ") is already called '" .. ARGV[9] .. "'.") end
return {'ok', redis.call('INCR', KEYS[2])}
