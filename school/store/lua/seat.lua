-- Enrol, hold or confirm (args.mode) one student's seat in one course, within the
-- course's capacity (enrolled + live holds) and the student's bound (courses + live holds).
-- KEYS: course, student, roster (scored by student id), student's courses, course's holds, student's holds, hold, events.
local course = redis.call('HMGET', KEYS[1], 'code', 'capacity')
if not course[1] then return missing('course', args.course) end
local name = redis.call('HGET', KEYS[2], 'name')
if not name then return missing('student', args.student, 'student') end
local now = now_ms()
local live = '(' .. now
local capacity = tonumber(course[2]) or 0
local enrolled = redis.call('ZCARD', KEYS[3])
local taking = redis.call('SCARD', KEYS[4])
local course_holds = redis.call('ZCOUNT', KEYS[5], live, '+inf')
local student_holds = redis.call('ZCOUNT', KEYS[6], live, '+inf')
local own = redis.call('ZSCORE', KEYS[5], args.student)
local own_hold = own and tonumber(own) > now
local vars = {name = name, code = course[1], load = taking + student_holds, limit = args.per_student,
  seats = capacity .. (capacity == 1 and ' seat' or ' seats')}
local function refused(why) return refuse('student', why, vars) end

if args.mode == 'confirm' and not own_hold then return refused('no_hold') end
if args.mode == 'hold' and own_hold then return refused('held') end
-- Enrolling or confirming uses up the student's own live hold: that seat is theirs.
local mine = (args.mode ~= 'hold' and own_hold) and 1 or 0
if redis.call('ZSCORE', KEYS[3], args.student) then return refused('enrolled') end
if taking + student_holds - mine >= args.per_student then return refused('student_limit') end
if enrolled + course_holds - mine >= capacity then return refused('full') end

-- Dead holds are pruned by every seat write, so the indexes stay within capacity.
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
if args.mode == 'hold' then
  local at = now + args.hold_ms
  redis.call('SET', KEYS[7], args.event.actor, 'PXAT', at)
  redis.call('ZADD', KEYS[5], at, args.student)
  redis.call('ZADD', KEYS[6], at, args.course)
  vars.expires = at
else
  redis.call('ZADD', KEYS[3], args.student, args.student)
  redis.call('SADD', KEYS[4], args.course)
  redis.call('ZREM', KEYS[5], args.student)
  redis.call('ZREM', KEYS[6], args.course)
  redis.call('DEL', KEYS[7])
end
log_event(vars)
return {'ok', name, course[1], vars.expires or 0}
