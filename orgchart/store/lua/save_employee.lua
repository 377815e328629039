-- KEYS: the employee, the name lookup, the name index, the roots, the event stream, then the
-- location's hash, staff set and staff name index (when given), then the manager's hash and report set (when given),
-- then the name trigram sets the employee leaves (SREM), then those it joins (SADD).
-- ARGV: id, '1' when hiring, name, folded name, title, full time, location, manager, the stored name
-- the trigram sets were computed from ('' for a hire), how many of them the employee leaves, the
-- suffix that names a location's staff name index from its staff set, the version the edit was
-- made on ('' for a hire, or to write whatever is stored), the heights index suffix, the most levels.
-- Replies {'ok', id}; or, nothing written, {'missing', message} when the employee edited no longer
-- exists, {'conflict', the stored hash's fields and values} when it is at another version, and
-- {'renamed', the stored name} when the name the trigram sets were computed from is no longer the
-- stored one (``follow_renames`` sends the call again with it).
local pk, creating, name, folded, title, full, loc, mgr =
  ARGV[8], ARGV[9] == '1', ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14], ARGV[15]
local k = 6
local lockey, staffkey, mgrkey, mgrreports
local staffnames
if loc ~= '' then lockey, staffkey, staffnames, k = KEYS[k], KEYS[k + 1], KEYS[k + 2], k + 3 end
if mgr ~= '' then mgrkey, mgrreports, k = KEYS[k], KEYS[k + 1], k + 2 end
local old = redis.call('HMGET', KEYS[1], 'name', 'folded', 'manager', 'location', 'total', 'version')
if not creating and not old[1] then return missing('This employee no longer exists.') end
if ARGV[19] ~= '' and (old[6] or '0') ~= ARGV[19] then return conflict(KEYS[1]) end
if (old[1] or '') ~= ARGV[16] then return {'renamed', old[1] or ''} end
local owner = redis.call('HGET', KEYS[2], folded)
if owner and owner ~= pk then
  return refuse('name', 'Another employee (#' .. owner .. ") is already called '" .. name .. "'.")
end
local locname = ''
if loc ~= '' then
  locname = redis.call('HGET', lockey, 'name')
  if not locname then return refuse('location', 'There is no location #' .. loc .. '.') end
end
local oldmgr, oldloc = old[3] or '', old[4] or ''
local moving = creating or oldmgr ~= mgr
local oldchain, newchain, h = {}, {}, 0
if moving then
  local refusal, before
  if not creating then
    oldchain, refusal = own_chain(pk, 'manager')
    if refusal then return refusal end
    h = height(pk)
    before = #oldchain + 1 + h
  end
  newchain, refusal = chain_under(pk, mgr, 'manager', mgrkey, 1 + h, before)
  if refusal then return refusal end
end
redis.call('HSET', KEYS[1], 'schema', '2', 'name', name, 'folded', folded, 'title', title, 'full_time', full,
  'location', loc, 'location_name', locname)
if creating then redis.call('HSET', KEYS[1], 'manager', '', 'direct', 0, 'total', 0) end
redis.call('HINCRBY', KEYS[1], 'version', 1)
local leaves = tonumber(ARGV[17])
for i = k, k + leaves - 1 do redis.call('SREM', KEYS[i], pk) end
for i = k + leaves, #KEYS do redis.call('SADD', KEYS[i], pk) end
index_name(KEYS[3], KEYS[2], old[2], folded, pk)
if creating or oldloc ~= loc then
  if oldloc ~= '' then redis.call('SREM', staff(oldloc), pk) end
  if loc ~= '' then redis.call('SADD', staffkey, pk) end
end
if oldloc ~= '' and old[2] and (oldloc ~= loc or old[2] ~= folded) then
  redis.call('ZREM', staff(oldloc) .. ARGV[18], old[2] .. '\0' .. pk)
end
if loc ~= '' then redis.call('ZADD', staffnames, 0, folded .. '\0' .. pk) end
if moving then
  local size = creating and 1 or tonumber(old[5] or 0) + 1
  relink(pk, oldchain, newchain, size, h, KEYS[4], mgrreports, mgrkey, entry(old[2] or '', pk), entry(folded, pk))
elseif oldmgr ~= '' and old[2] ~= folded then
  redis.call('ZREM', names(oldmgr), entry(old[2] or '', pk))
  redis.call('ZADD', names(oldmgr), 0, entry(folded, pk))
end
event(KEYS[5], creating and 'created' or 'updated', 'employee', pk, name, ARGV[7])
return {'ok', pk}
