-- Enrol many students in one course, within its capacity (enrolled + live holds) and each student's
-- bound (courses + live holds), in one script: the roster is never half written. A student's own
-- live hold in the course is used up by the enrolment, as ``seat.lua`` does for one.
-- KEYS: course, roster (scored by student id), course's holds, then per student: student, student's courses, student's
-- holds, the student's hold on this course; events last. args.students: the ids, in KEYS' order.
-- Reply: {'ok', code, then per student: id, what happened (done, enrolled, limit, full, missing), name}.
local course = redis.call('HMGET', KEYS[1], 'code', 'capacity')
if not course[1] then return missing('course', args.course, 'course') end
local now = now_ms()
local live = '(' .. now
local capacity = tonumber(course[2]) or 0
local taken = redis.call('ZCARD', KEYS[2]) + redis.call('ZCOUNT', KEYS[3], live, '+inf')
local reply = {'ok', course[1]}
for i, id in ipairs(args.students) do
  local at = 4 * i
  local student, courses, holds, hold = KEYS[at], KEYS[at + 1], KEYS[at + 2], KEYS[at + 3]
  local name = redis.call('HGET', student, 'name')
  local what
  if not name then
    what, name = 'missing', ''
  elseif redis.call('ZSCORE', KEYS[2], id) then
    what = 'enrolled'
  else
    local own = redis.call('ZSCORE', KEYS[3], id)
    local mine = (own and tonumber(own) > now) and 1 or 0
    local load = redis.call('SCARD', courses) + redis.call('ZCOUNT', holds, live, '+inf')
    if load - mine >= args.per_student then
      what = 'limit'
    elseif taken - mine >= capacity then
      what = 'full'
    else
      redis.call('ZREMRANGEBYSCORE', holds, '-inf', now)
      redis.call('ZADD', KEYS[2], id, id)
      redis.call('SADD', courses, args.course)
      redis.call('ZREM', KEYS[3], id)
      redis.call('ZREM', holds, args.course)
      redis.call('DEL', hold)
      taken = taken + 1 - mine
      what = 'done'
      log_event({name = name, code = course[1]})
    end
  end
  reply[#reply + 1] = id
  reply[#reply + 1] = what
  reply[#reply + 1] = name
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
return reply
