-- Lua shared by the scripts that place an employee under a manager (moves, hires, edits, deletes).
-- Every script that includes it takes ``limits()`` as its last three arguments: the suffixes of a
-- heights index and of a report name index, and the most levels of a chain (``conf.max_depth``).
-- Every walk here stops after MAXD managers, so no write runs more than a bounded number of commands
-- whatever the shape of the org.
local HS, NS, MAXD = ARGV[#ARGV - 2], ARGV[#ARGV - 1], tonumber(ARGV[#ARGV])
local function heights(id) return E .. id .. RS .. HS end
local function names(id) return E .. id .. RS .. NS end
local function entry(folded, id) return folded .. string.char(0) .. id end
-- The managers above ``id``, nearest first, and whether that is the whole chain: the walk stops
-- after ``MAXD`` of them (one HGET each).
local function climb(id)
  local chain, cur = {}, redis.call('HGET', E .. id, 'manager')
  while cur and cur ~= '' do
    if #chain >= MAXD then return chain, false end
    chain[#chain + 1] = cur
    cur = redis.call('HGET', E .. cur, 'manager')
  end
  return chain, true
end
-- The longest chain of reports below ``id`` (0: it has none): its direct count and its heights index.
local function height(id)
  if tonumber(redis.call('HGET', E .. id, 'direct') or '0') == 0 then return 0 end
  local top = redis.call('ZREVRANGE', heights(id), 0, 0, 'WITHSCORES')
  return 1 + (tonumber(top[2]) or 0)
end
-- After the reports of ``id`` changed: its height put in its manager's heights index, and so on up
-- ``chain`` (from its ``first`` item, ``id``'s manager) while a height changes.
local function lift(id, chain, first)
  local cur, h = id, height(id)
  for i = first, #chain do
    local mgr = chain[i]
    -- ZADD CH and ZREM answer 0 when the score stored was already right: nothing above changes
    local changed = h > 0 and redis.call('ZADD', heights(mgr), 'CH', h, cur) or redis.call('ZREM', heights(mgr), cur)
    if changed == 0 then return end
    local top = redis.call('ZREVRANGE', heights(mgr), 0, 0, 'WITHSCORES')
    cur, h = mgr, 1 + (tonumber(top[2]) or 0)
  end
end
local function too_deep(field, name)
  return refuse(field, 'That would put ' .. name .. "'s team more than " .. MAXD ..
    ' levels down the chain of command, the most the org chart allows: pick a manager higher up.')
end
-- The managers above ``pk`` (its own chain), or nil and a refusal when it is more than MAXD deep.
local function own_chain(pk, field)
  local chain, whole = climb(pk)
  if whole then return chain end
  return nil, refuse(field, 'This employee is more than ' .. MAXD ..
    ' levels down the chain of command: move one of their managers higher up first.')
end
-- The chain ``pk`` would have under ``new`` (new manager first), or nil and a refusal: a walk up
-- from the new manager, one HGET per level and at most MAXD, finds a cycle or too deep a chain.
-- ``levels`` is how far below ``new`` the deepest person placed would be (1 + the team's height),
-- ``before`` how deep that person is now (nil: no limit), the limit applying only to a move deeper.
local function chain_under(pk, new, field, newkey, levels, before)
  if new == '' then return {} end
  if new == pk then
    if field == 'successor' then return nil, refuse(field, 'Pick someone other than the employee being deleted.') end
    return nil, refuse(field, 'An employee cannot report to themselves.')
  end
  if redis.call('EXISTS', newkey) == 0 then return nil, refuse(field, 'There is no employee #' .. new .. '.') end
  local chain, whole = climb(new)
  table.insert(chain, 1, new)
  for _, a in ipairs(chain) do
    if a == pk then
      local name = redis.call('HGET', newkey, 'name')
      if field == 'successor' then
        return nil, refuse(field, name .. " is in this employee's own team: pick someone outside it.")
      end
      return nil, refuse(field, name .. ' reports, directly or not, to this employee: that would make a cycle.')
    end
  end
  if not whole or (#chain + levels > MAXD and (before == nil or #chain + levels > before)) then
    return nil, too_deep(field, redis.call('HGET', emp(pk), 'name') or 'the new employee')
  end
  return chain
end
-- Add ``amount`` to the totals along ``chain`` from its ``first`` item up to (not including) the
-- first one in ``stop`` (a set of ids); returns where it stopped ('' at the top).
local function add_up(chain, first, amount, stop)
  for i = first, #chain do
    local a = chain[i]
    if stop[a] then return a end
    redis.call('HINCRBY', emp(a), 'total', amount)
  end
  return ''
end
-- Move the REPORTS_TO edge of ``pk`` (``size`` people with everyone below, the longest chain below
-- it ``h``) from under ``oldchain`` (its managers, nearest first) to under ``newchain``: both report
-- sets, both direct counts, the totals along the two chains up to the lowest manager they share,
-- above which nothing changes, the heights indexes up each chain while a height changes, and the
-- report name indexes (``pk``'s entry there: ``was`` in the old one, ``now`` in the new).
local function relink(pk, oldchain, newchain, size, h, roots, newreports, newkey, was, now)
  local onnew = {}
  for _, a in ipairs(newchain) do onnew[a] = true end
  local old, new, meet = oldchain[1] or '', newchain[1] or '', ''
  if old == '' then
    redis.call('SREM', roots, pk)
  else
    redis.call('SREM', reports(old), pk)
    redis.call('HINCRBY', emp(old), 'direct', -1)
    redis.call('ZREM', heights(old), pk)
    redis.call('ZREM', names(old), was)
    meet = add_up(oldchain, 1, -size, onnew)
    lift(old, oldchain, 2)
  end
  if new == '' then
    redis.call('SADD', roots, pk)
  else
    redis.call('SADD', newreports, pk)
    redis.call('ZADD', names(new), 0, now)
    redis.call('HINCRBY', newkey, 'direct', 1)
    if h > 0 then redis.call('ZADD', heights(new), h, pk) end
    for _, a in ipairs(newchain) do
      if a == meet then break end
      redis.call('HINCRBY', emp(a), 'total', size)
    end
    lift(new, newchain, 2)
  end
  redis.call('HSET', emp(pk), 'manager', new)
end
