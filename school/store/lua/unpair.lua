-- Remove one pair, both sides at once: an assignment or an enrolment (args.kind 'set'),
-- or a seat hold ('hold', which also deletes the hold key). A pair that is not there
-- is refused; a dead hold still in the index is there, and goes.
-- KEYS: course, the other document, the course's side, the other's side, [hold,] events.
local code = redis.call('HGET', KEYS[1], 'code')
if not code then return missing('course', args.course) end
local name = redis.call('HGET', KEYS[2], 'name')
if not name then return missing(args.entity, args.other, args.entity) end
local vars = {name = name, code = code}
local member
if args.kind == 'hold' then
  member = redis.call('ZSCORE', KEYS[3], args.other)
else
  member = redis.call('SISMEMBER', KEYS[3], args.other) == 1
end
if not member then return refuse(args.entity, 'not_member', vars) end
if args.kind == 'hold' then
  redis.call('ZREM', KEYS[3], args.other)
  redis.call('ZREM', KEYS[4], args.course)
  redis.call('DEL', KEYS[5])
else
  redis.call('SREM', KEYS[3], args.other)
  redis.call('SREM', KEYS[4], args.course)
end
log_event(vars)
return {'ok', name, code}
