-- KEYS: the employee. ARGV: id, depth, budget, rows shown, managers shown. Flat: its hash, the
-- nearest managers of its chain of command (top first) and the one above them ('' at the top), the
-- level sizes, how many at the depth, whether the budget cut the walk short, and the first rows at
-- the depth by id; empty when there is no such employee.
local pk, depth, budget, limit = ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local data = redis.call('HGETALL', KEYS[1])
if #data == 0 then return {} end
local direct = 0
for i = 1, #data, 2 do if data[i] == 'direct' then direct = tonumber(data[i + 1]) or 0 end end
-- The first level is the direct count, whatever its size: a walk reads sets only for depth 2 on.
local lists, walked = {}, 0
if depth > 1 then lists, walked = down({pk}, 0, depth, budget, tonumber(ARGV[13])) end
local sizes, deepest = {direct}, lists[depth] or {}
for i = 2, depth do sizes[i] = lists[i] and #lists[i] or 0 end
if depth > 1 then deepest = by_id(deepest) end
local out = {}
put_employee_chain(out, pk, data, tonumber(ARGV[12]))
put_list(out, sizes)
out[#out + 1] = depth > 1 and #deepest or direct
out[#out + 1] = depth > 1 and cut({pk}, lists, walked, 0, depth) and 1 or 0
put_rows(out, depth > 1 and deepest or {}, limit)
return out
