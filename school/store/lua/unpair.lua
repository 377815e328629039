-- Remove one pair, both sides at once: an assignment or an enrolment (args.kind 'set'),
-- or a seat hold ('hold', which also deletes the hold key). A pair that is not there
-- is refused; a dead hold still in the index is there, and goes. args.sides: the Redis
-- type of the course's side and of the other's ('set' or 'zset': a roster, a holds index).
-- KEYS: course, the other document, the course's side, the other's side, [hold,] events.
local code = redis.call('HGET', KEYS[1], 'code')
if not code then return missing('course', args.course) end
local name = redis.call('HGET', KEYS[2], 'name')
if not name then return missing(args.entity, args.other, args.entity) end
local vars = {name = name, code = code}
if not side_has(args.sides[1], KEYS[3], args.other) then return refuse(args.entity, 'not_member', vars) end
side_remove(args.sides[1], KEYS[3], args.other)
side_remove(args.sides[2], KEYS[4], args.course)
if args.kind == 'hold' then redis.call('DEL', KEYS[5]) end
log_event(vars)
return {'ok', name, code}
