-- KEYS: the employee, its report set, the roots, the event stream, then the successor's hash and report
-- set (when given). ARGV: id, successor ('' for the top), how many reports at most. One slice of a
-- delete's handover, for an employee with more direct reports than one script should move: up to that
-- many of them (the first by name) go under the successor, with everyone below them, the org whole
-- after each slice. Replies {'ok', the direct reports left}, or a refusal as the delete's.
local pk, succ, most = ARGV[8], ARGV[9], tonumber(ARGV[10])
if redis.call('EXISTS', KEYS[1]) == 0 then return missing('This employee no longer exists.') end
local oldchain, h, chain = handover_checks(pk, succ, KEYS[5])
if not oldchain then return h end
local ids = {}
for _, e in ipairs(redis.call('ZRANGE', names(pk), 0, most - 1)) do
  ids[#ids + 1] = string.sub(e, string.find(e, string.char(0), 1, true) + 1)
end
if #ids == 0 then ids = redis.call('SRANDMEMBER', KEYS[2], most) end  -- a name index not built yet
hand_over(pk, succ, ids, oldchain, chain, KEYS[3], KEYS[6], KEYS[5])
return {'ok', redis.call('SCARD', KEYS[2])}
