-- Assign an instructor to a course: both sides of the two-way embedding, within both bounds.
-- KEYS: course, instructor, course's instructors, instructor's courses, events.
local code = redis.call('HGET', KEYS[1], 'code')
if not code then return reply({missing = 'course'}) end
local name = redis.call('HGET', KEYS[2], 'name')
if not name then return reply({missing = 'instructor'}) end
local result = {name = name, code = code}

local function refuse(why, count)
  result.refused, result.count = why, count
  return reply(result)
end

if redis.call('SISMEMBER', KEYS[3], args.instructor) == 1 then return refuse('member', 0) end
local per_course = redis.call('SCARD', KEYS[3])
if per_course >= args.per_course then return refuse('course_limit', per_course) end
local per_instructor = redis.call('SCARD', KEYS[4])
if per_instructor >= args.per_instructor then return refuse('instructor_limit', per_instructor) end
redis.call('SADD', KEYS[3], args.instructor)
redis.call('SADD', KEYS[4], args.course)
log_event(result)
result.done = true
return reply(result)
