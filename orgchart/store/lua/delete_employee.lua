-- KEYS: the employee, its report set, the name lookup, the name index, the roots, the event stream,
-- then the successor's hash and report set (when given), then the name's trigram sets.
-- ARGV: id, successor ('' for nobody), the stored name the trigram sets were computed from, the
-- suffix that names a location's staff name index from its staff set, the most direct reports it
-- hands over itself.
-- Replies {'ok', the name deleted}; or, nothing written, {'missing', message}, a refusal,
-- {'renamed', the stored name} when it is another than the one given (as the save does), or
-- {'more', count} when the employee has more direct reports than that (``_HANDOVER`` slices first).
local pk, succ = ARGV[8], ARGV[9]
local row = redis.call('HMGET', KEYS[1], 'name', 'folded', 'manager', 'location', 'total', 'direct')
if not row[1] then return missing('This employee no longer exists.') end
if row[1] ~= ARGV[10] then return {'renamed', row[1]} end
local count = redis.call('SCARD', KEYS[2])
if count > tonumber(ARGV[12]) then return {'more', count} end
local oldchain, h, chain = handover_checks(pk, succ, KEYS[7])
if not oldchain then return h end
-- The reports (with everyone below them) go under the successor, then the employee leaves.
if count > 0 then hand_over(pk, succ, redis.call('SMEMBERS', KEYS[2]), oldchain, chain, KEYS[5], KEYS[8], KEYS[7]) end
local old = row[3] or ''
if old == '' then
  redis.call('SREM', KEYS[5], pk)
else
  redis.call('SREM', reports(old), pk)
  redis.call('ZREM', names(old), entry(row[2] or '', pk))
  redis.call('HINCRBY', emp(old), 'direct', -1)
  redis.call('ZREM', heights(old), pk)
  add_up(oldchain, 1, -1, {})
  lift(old, oldchain, 2)
end
if row[4] and row[4] ~= '' then
  redis.call('SREM', staff(row[4]), pk)
  redis.call('ZREM', staff(row[4]) .. ARGV[11], (row[2] or '') .. '\0' .. pk)
end
redis.call('ZREM', KEYS[4], (row[2] or '') .. '\0' .. pk)
redis.call('HDEL', KEYS[3], row[2] or '')
redis.call('DEL', KEYS[1], KEYS[2], heights(pk), names(pk))
for i = (succ == '' and 7 or 9), #KEYS do redis.call('SREM', KEYS[i], pk) end
event(KEYS[6], 'deleted', 'employee', pk, row[1], '')
return {'ok', row[1]}
