"""The chain of command: the Lua every write that places an employee under a manager shares, and
the two writes that are only that, a move and a delete (with its handover of direct reports).

A move checks for a cycle by walking up from the new manager and changes the ``total`` counts
along the two chains of ancestors only, up to where they meet, so its cost grows with the depth of
the tree (at most ``conf.max_depth()`` levels) and never with the size of the subtree moved.
"""

from __future__ import annotations

from config.activity import Actor
from config.store import Busy, watch_retries
from orgchart import conf, keys
from orgchart.store.core import Script, events_key, written
from orgchart.store.names import NAMES

# Lua shared by the scripts that place an employee under a manager (moves, hires, edits, deletes).
# Every script that includes it takes ``limits()`` as its last three arguments: the suffixes of a
# heights index and of a report name index, and the most levels of a chain (``conf.max_depth``).
# Every walk here stops after MAXD managers, so no write runs more than a bounded number of commands
# whatever the shape of the org.
PLACE = """
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
"""

# KEYS: the employee, the roots, the event stream, then the new manager's hash and report set
# (none when moving to the top). ARGV: id, new manager ('' for the top), the heights index suffix,
# the most levels. Replies {'ok', the employee's name, the new manager's}, having written nothing
# when the manager is the same.
_MOVE = Script(
    """
local pk, new = ARGV[8], ARGV[9]
"""
    + PLACE
    + """
local row = redis.call('HMGET', KEYS[1], 'name', 'manager', 'total', 'folded')
if not row[1] then return missing('This employee no longer exists.') end
local old = row[2] or ''
local newname = new ~= '' and redis.call('HGET', KEYS[4], 'name') or ''
if old == new then return {'ok', row[1], newname} end
local oldchain, refusal = own_chain(pk, 'manager')
if refusal then return refusal end
local h = height(pk)
local newchain
newchain, refusal = chain_under(pk, new, 'manager', KEYS[4], 1 + h, #oldchain + 1 + h)
if refusal then return refusal end
local mine = entry(row[4] or '', pk)
relink(pk, oldchain, newchain, tonumber(row[3] or 0) + 1, h, KEYS[2], KEYS[5], KEYS[4], mine, mine)
redis.call('HINCRBY', KEYS[1], 'version', 1)
event(KEYS[3], 'moved', 'employee', pk, row[1], ARGV[7])
return {'ok', row[1], newname}
"""
)

# Lua shared by the delete and its handover slices: the checks, and the move of some direct reports
# of ``pk`` under ``succ``.
HAND = """
-- ``pk``'s chain, its height and the successor's chain (successor first), or nil and a refusal: the
-- reports, with everyone below them, must stay within MAXD levels under the successor.
local function handover_checks(pk, succ, succkey)
  local oldchain, refusal = own_chain(pk, 'successor')
  if refusal then return nil, refusal end
  local h = height(pk)
  local chain
  if h > 0 then
    chain, refusal = chain_under(pk, succ, 'successor', succkey, h, #oldchain + 1 + h)
  else
    chain, refusal = chain_under(pk, succ, 'successor', succkey, 0, nil)
  end
  if refusal then return nil, refusal end
  return oldchain, h, chain
end
-- Put ``ids`` (direct reports of ``pk``) under ``succ`` ('' for the top): their manager fields, both
-- report sets and name indexes, the heights indexes, and the totals along ``pk``'s chain (``pk``
-- first) and ``chain`` up to where they meet; returns that meeting point ('' at the top).
local function hand_over(pk, succ, ids, oldchain, chain, roots, succreports, succkey)
  local moved, entries, tall = 0, {}, {}
  for _, child in ipairs(ids) do
    local row = redis.call('HMGET', emp(child), 'total', 'folded')
    moved = moved + tonumber(row[1] or 0) + 1
    entries[#entries + 1] = entry(row[2] or '', child)
    local score = redis.call('ZSCORE', heights(pk), child)
    if score then tall[#tall + 1] = {score, child} end
    redis.call('HSET', emp(child), 'manager', succ)
    redis.call('HINCRBY', emp(child), 'version', 1)
  end
  each_chunk(ids, function(part) redis.call('SREM', reports(pk), unpack(part)) end)
  each_chunk(entries, function(part) redis.call('ZREM', names(pk), unpack(part)) end)
  for _, t in ipairs(tall) do redis.call('ZREM', heights(pk), t[2]) end
  redis.call('HINCRBY', emp(pk), 'direct', -#ids)
  local mine = {pk}
  for _, a in ipairs(oldchain) do mine[#mine + 1] = a end
  local onnew = {}
  for _, a in ipairs(chain) do onnew[a] = true end
  local meet = add_up(mine, 1, -moved, onnew)
  lift(pk, oldchain, 1)
  if succ == '' then
    each_chunk(ids, function(part) redis.call('SADD', roots, unpack(part)) end)
  else
    each_chunk(ids, function(part) redis.call('SADD', succreports, unpack(part)) end)
    for _, e in ipairs(entries) do redis.call('ZADD', names(succ), 0, e) end
    for _, t in ipairs(tall) do redis.call('ZADD', heights(succ), t[1], t[2]) end
    redis.call('HINCRBY', succkey, 'direct', #ids)
    for _, a in ipairs(chain) do
      if a == meet then break end
      redis.call('HINCRBY', emp(a), 'total', moved)
    end
    lift(succ, chain, 2)
  end
  return meet
end
"""

# KEYS: the employee, its report set, the roots, the event stream, then the successor's hash and report
# set (when given). ARGV: id, successor ('' for the top), how many reports at most. One slice of a
# delete's handover, for an employee with more direct reports than one script should move: up to that
# many of them (the first by name) go under the successor, with everyone below them, the org whole
# after each slice. Replies {'ok', the direct reports left}, or a refusal as the delete's.
_HANDOVER = Script(
    PLACE
    + HAND
    + """
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
"""
)

# KEYS: the employee, its report set, the name lookup, the name index, the roots, the event stream,
# then the successor's hash and report set (when given), then the name's trigram sets.
# ARGV: id, successor ('' for nobody), the stored name the trigram sets were computed from, the
# suffix that names a location's staff name index from its staff set, the most direct reports it
# hands over itself.
# Replies {'ok', the name deleted}; or, nothing written, {'missing', message}, a refusal,
# {'renamed', the stored name} when it is another than the one given (as the save does), or
# {'more', count} when the employee has more direct reports than that (``_HANDOVER`` slices first).
_DELETE = Script(
    PLACE
    + HAND
    + """
local pk, succ = ARGV[8], ARGV[9]
local row = redis.call('HMGET', KEYS[1], 'name', 'folded', 'manager', 'location', 'total', 'direct')
if not row[1] then return missing('This employee no longer exists.') end
if row[1] ~= ARGV[10] then return {'renamed', row[1]} end
local count = redis.call('SCARD', KEYS[2])
if count > tonumber(ARGV[12]) then return {'more', count} end
local oldchain, h, chain = handover_checks(pk, succ, KEYS[7])
if not oldchain then return h end
-- The reports (with everyone below them) go under the successor, then the employee leaves.
if count > 0 then hand_over(pk, succ, redis.call('SMEMBERS', KEYS[2]), oldchain, chain, KEYS[5], KEYS[8], KEYS[7]) end
local old = row[3] or ''
if old == '' then
  redis.call('SREM', KEYS[5], pk)
else
  redis.call('SREM', reports(old), pk)
  redis.call('ZREM', names(old), entry(row[2] or '', pk))
  redis.call('HINCRBY', emp(old), 'direct', -1)
  redis.call('ZREM', heights(old), pk)
  add_up(oldchain, 1, -1, {})
  lift(old, oldchain, 2)
end
if row[4] and row[4] ~= '' then
  redis.call('SREM', staff(row[4]), pk)
  redis.call('ZREM', staff(row[4]) .. ARGV[11], (row[2] or '') .. '\\0' .. pk)
end
redis.call('ZREM', KEYS[4], (row[2] or '') .. '\\0' .. pk)
redis.call('HDEL', KEYS[3], row[2] or '')
redis.call('DEL', KEYS[1], KEYS[2], heights(pk), names(pk))
for i = (succ == '' and 7 or 9), #KEYS do redis.call('SREM', KEYS[i], pk) end
event(KEYS[6], 'deleted', 'employee', pk, row[1], '')
return {'ok', row[1]}
"""
)


def delete_employee(pk: int, successor: int | None, *, actor: Actor, name: str = "") -> str:
    """Delete an employee; ``successor`` (None: nobody, they go to the top) takes over the direct
    reports, refused when inside the employee's own team. The document, both edges, the indexes
    (the name's trigram sets too) and the counts along the two chains change in one script.
    ``name`` is the stored name the caller showed (the script checks it; without it, or when it
    changed, the script answers with the stored one and a second call follows). Returns the name
    deleted.

    An employee with more than ``conf.handover_slice()`` direct reports hands them over first, a slice per
    script (``_HANDOVER``: each slice's people, with everyone below them, move whole, every count and
    index with them), so that no script touches more than a slice of them; the org is whole after
    each slice, and a refusal met on the way (the successor moved into the team meanwhile) leaves the
    reports already handed over under the successor."""
    keys_ = [
        keys.employee(pk), keys.reports(pk), keys.employee_by_name(), keys.employee_names(), keys.roots(),
        events_key(),
    ]  # fmt: skip
    taker = [keys.employee(successor), keys.reports(successor)] if successor is not None else []
    keys_ += taker
    succ = "" if successor is None else str(successor)
    slice_keys = [keys.employee(pk), keys.reports(pk), keys.roots(), events_key(), *taker]

    def attempt(stored: str) -> list:
        most = conf.handover_slice()
        argv = [pk, succ, stored, keys.staff_names_suffix(), most, *limits()]
        reply = _DELETE([*keys_, *NAMES.keys_for(stored)], argv, actor)
        while reply[0] == "more":
            left = reply[1]
            while left > most:
                (left,) = written(_HANDOVER(slice_keys, [pk, succ, most, *limits()], actor))
            reply = _DELETE([*keys_, *NAMES.keys_for(stored)], argv, actor)
        return reply

    (deleted,) = written(follow_renames(attempt, name, pk))
    return deleted


def move_employee(pk: int, manager: int | None, *, actor: Actor) -> tuple[str, str]:
    """Put ``pk`` under ``manager`` (None: the top) with everyone below it: one script, one round
    trip. Refuses a cycle (found walking up from the new manager); the counts change along the two
    chains of ancestors only. Returns the names of the employee and of the new manager."""
    new = "" if manager is None else str(manager)
    keys_ = [keys.employee(pk), keys.roots(), events_key()]
    if manager is not None:
        keys_ += [keys.employee(manager), keys.reports(manager)]
    who, boss = written(_MOVE(keys_, [pk, new, *limits()], actor, actor.link("employee", str(pk))))
    return who, boss


def limits() -> list:
    """What every placing script is given after its own arguments: the suffixes of a heights index
    and of a report name index, and the most levels of a chain of command."""
    return [keys.report_heights_suffix(), keys.report_names_suffix(), conf.max_depth()]


def follow_renames(attempt, name: str, pk: int) -> list:
    """The reply of ``attempt(name)``, a write script given the stored name the caller read (the
    name trigram sets it leaves are computed from it). When another name is stored (a rename
    meanwhile, or no name given), the script writes nothing and answers ``{'renamed', the stored
    name}``: the call goes again with that one, up to ``watch_retries()`` times."""
    for _ in range(watch_retries()):
        reply = attempt(name)
        if reply[0] != "renamed":
            return reply
        name = reply[1]
    raise Busy(keys.employee(pk))
