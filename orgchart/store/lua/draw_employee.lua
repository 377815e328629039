-- Checks a hire can fail before its id is drawn, so that a refused hire takes no id. KEYS: the
-- name lookup, the id counter, then the manager's hash and the location's hash when given.
-- ARGV: folded name, name, manager id, location id ('' for none), the heights index suffix, the
-- most levels. Replies {'ok', the id drawn}.
local folded, name, mgr, loc = ARGV[8], ARGV[9], ARGV[10], ARGV[11]
local owner = redis.call('HGET', KEYS[1], folded)
if owner then return refuse('name', 'Another employee (#' .. owner .. ") is already called '" .. name .. "'.") end
local k = 3
if mgr ~= '' then
  if redis.call('EXISTS', KEYS[k]) == 0 then return refuse('manager', 'There is no employee #' .. mgr .. '.') end
  local chain, whole = climb(mgr)
  if not whole or #chain + 2 > MAXD then
    return refuse('manager', redis.call('HGET', KEYS[k], 'name') .. ' is at the deepest level the org chart allows (' ..
      MAXD .. ' levels): pick a manager higher up.')
  end
  k = k + 1
end
if loc ~= '' and redis.call('EXISTS', KEYS[k]) == 0 then
  return refuse('location', 'There is no location #' .. loc .. '.')
end
return {'ok', redis.call('INCR', KEYS[2])}
