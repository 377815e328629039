-- KEYS: the employee, the roots, the event stream, then the new manager's hash and report set
-- (none when moving to the top). ARGV: id, new manager ('' for the top), the heights index suffix,
-- the most levels. Replies {'ok', the employee's name, the new manager's}, having written nothing
-- when the manager is the same.
local pk, new = ARGV[8], ARGV[9]
local row = redis.call('HMGET', KEYS[1], 'name', 'manager', 'total', 'folded')
if not row[1] then return missing('This employee no longer exists.') end
local old = row[2] or ''
local newname = new ~= '' and redis.call('HGET', KEYS[4], 'name') or ''
if old == new then return {'ok', row[1], newname} end
local oldchain, refusal = own_chain(pk, 'manager')
if refusal then return refusal end
local h = height(pk)
local newchain
newchain, refusal = chain_under(pk, new, 'manager', KEYS[4], 1 + h, #oldchain + 1 + h)
if refusal then return refusal end
local mine = entry(row[4] or '', pk)
relink(pk, oldchain, newchain, tonumber(row[3] or 0) + 1, h, KEYS[2], KEYS[5], KEYS[4], mine, mine)
redis.call('HINCRBY', KEYS[1], 'version', 1)
event(KEYS[3], 'moved', 'employee', pk, row[1], ARGV[7])
return {'ok', row[1], newname}
