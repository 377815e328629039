-- Shared by the scripts that walk the tree up (``ancestors``) and down (``tree``, after down.lua).
-- The ids as numbers in ascending order: each converted once, then compared by table.sort itself
-- (a comparator function converting both sides costs a Lua call per comparison).
local function by_id(ids)
  local nums = {}
  for i, id in ipairs(ids) do nums[i] = tonumber(id) end
  table.sort(nums)
  return nums
end
-- Up to ``limit`` managers above ``id``, nearest first (one HGET each), and the manager of the
-- farthest of them ('' at the top): where a further slice of the walk starts. A chain past the
-- limit costs no more than the limit.
local function climb(id, limit)
  local chain, cur = {}, redis.call('HGET', E .. id, 'manager')
  while cur and cur ~= '' and #chain < limit do
    chain[#chain + 1] = cur
    cur = redis.call('HGET', E .. cur, 'manager')
  end
  return chain, cur or ''
end
-- The employee's hash, then the nearest ``limit`` managers of its chain of command top first, as
-- rows, then the id of the manager above the farthest one shown ('' when they reach the top).
local function put_employee_chain(out, id, data, limit)
  put_list(out, data)
  local chain, above = climb(id, limit)
  local top_first = {}
  for i = #chain, 1, -1 do top_first[#top_first + 1] = chain[i] end
  put_rows(out, top_first)
  out[#out + 1] = above
end
-- Whether a walk from ``sent`` stopped with people still to walk above ``maxdepth``.
local function cut(sent, lists, walked, level, maxdepth)
  local before = #lists > 1 and lists[#lists - 1] or sent
  return walked < #before or (#lists[#lists] > 0 and level + #lists < maxdepth)
end
