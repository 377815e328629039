-- KEYS: the employee. ARGV: id, managers shown. Flat: its hash, the nearest managers of its chain of
-- command (top first) and the one above them ('' at the top).
local data = redis.call('HGETALL', KEYS[1])
if #data == 0 then return {} end
local out = {}
put_employee_chain(out, ARGV[8], data, tonumber(ARGV[9]))
return out
