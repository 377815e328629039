-- Assign an instructor to a course: both sides of the two-way embedding, within both bounds.
-- KEYS: course, instructor, course's instructors, instructor's courses, events.
local code = redis.call('HGET', KEYS[1], 'code')
if not code then return missing('course', args.course) end
local name = redis.call('HGET', KEYS[2], 'name')
if not name then return missing('instructor', args.instructor, 'instructor') end
local vars = {name = name, code = code}
if redis.call('SISMEMBER', KEYS[3], args.instructor) == 1 then return refuse('instructor', 'member', vars) end
vars.count = redis.call('SCARD', KEYS[3])
if vars.count >= args.per_course then return refuse('instructor', 'course_limit', vars) end
vars.count = redis.call('SCARD', KEYS[4])
if vars.count >= args.per_instructor then return refuse('instructor', 'instructor_limit', vars) end
redis.call('SADD', KEYS[3], args.instructor)
redis.call('SADD', KEYS[4], args.course)
log_event(vars)
return {'ok', name, code}
