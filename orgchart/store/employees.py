"""Employees: reading one or a page of them, resolving typed names, and hiring and editing, each
write one script (two round trips for a hire: the id is drawn first). Moves and deletes, and the
Lua a hire or an edit shares with them to place someone under a manager, are in ``chain``.
"""

from __future__ import annotations

import re

from config.activity import Actor
from config.redis import client
from config.store.ngramtext import Query
from config.store.scripts import execute, register, run_script
from config.store.sorting import SORT_LUA
from orgchart import keys
from orgchart.documents import Employee, fold
from orgchart.store.chain import PLACE, follow_renames, limits
from orgchart.store.core import (
    Script,
    events_key,
    name_page,
    pipeline,
    sorted_rows,
    summaries,
    written,
)
from orgchart.store.locations import queue_location_choices, read_location_choices
from orgchart.store.names import NAMES, search_employee_ids

__all__ = [
    "get_employee",
    "employee_page",
    "employee_form_data",
    "parse_employee_ref",
    "resolve_employee",
    "resolve_employees",
    "save_employee",
]

_ID = re.compile(r"#?([1-9][0-9]{0,17})")  # what INCR hands out: ASCII digits, 64-bit

# Checks a hire can fail before its id is drawn, so that a refused hire takes no id. KEYS: the
# name lookup, the id counter, then the manager's hash and the location's hash when given.
# ARGV: folded name, name, manager id, location id ('' for none), the heights index suffix, the
# most levels. Replies {'ok', the id drawn}.
_DRAW = Script(
    """
local folded, name, mgr, loc = ARGV[8], ARGV[9], ARGV[10], ARGV[11]
"""
    + PLACE
    + """
local owner = redis.call('HGET', KEYS[1], folded)
if owner then return refuse('name', 'Another employee (#' .. owner .. ") is already called '" .. name .. "'.") end
local k = 3
if mgr ~= '' then
  if redis.call('EXISTS', KEYS[k]) == 0 then return refuse('manager', 'There is no employee #' .. mgr .. '.') end
  local chain, whole = climb(mgr)
  if not whole or #chain + 2 > MAXD then
    return refuse('manager', redis.call('HGET', KEYS[k], 'name') .. ' is at the deepest level the org chart allows (' ..
      MAXD .. ' levels): pick a manager higher up.')
  end
  k = k + 1
end
if loc ~= '' and redis.call('EXISTS', KEYS[k]) == 0 then
  return refuse('location', 'There is no location #' .. loc .. '.')
end
return {'ok', redis.call('INCR', KEYS[2])}
"""
)

# KEYS: the employee, the name lookup, the name index, the roots, the event stream, then the
# location's hash, staff set and staff name index (when given), then the manager's hash and report set (when given),
# then the name trigram sets the employee leaves (SREM), then those it joins (SADD).
# ARGV: id, '1' when hiring, name, folded name, title, full time, location, manager, the stored name
# the trigram sets were computed from ('' for a hire), how many of them the employee leaves, the
# suffix that names a location's staff name index from its staff set, the version the edit was
# made on ('' for a hire, or to write whatever is stored), the heights index suffix, the most levels.
# Replies {'ok', id}; or, nothing written, {'missing', message} when the employee edited no longer
# exists, {'conflict', the stored hash's fields and values} when it is at another version, and
# {'renamed', the stored name} when the name the trigram sets were computed from is no longer the
# stored one (``follow_renames`` sends the call again with it).
_SAVE = Script(
    PLACE
    + """
local pk, creating, name, folded, title, full, loc, mgr =
  ARGV[8], ARGV[9] == '1', ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14], ARGV[15]
local k = 6
local lockey, staffkey, mgrkey, mgrreports
local staffnames
if loc ~= '' then lockey, staffkey, staffnames, k = KEYS[k], KEYS[k + 1], KEYS[k + 2], k + 3 end
if mgr ~= '' then mgrkey, mgrreports, k = KEYS[k], KEYS[k + 1], k + 2 end
local old = redis.call('HMGET', KEYS[1], 'name', 'folded', 'manager', 'location', 'total', 'version')
if not creating and not old[1] then return missing('This employee no longer exists.') end
if ARGV[19] ~= '' and (old[6] or '0') ~= ARGV[19] then return conflict(KEYS[1]) end
if (old[1] or '') ~= ARGV[16] then return {'renamed', old[1] or ''} end
local owner = redis.call('HGET', KEYS[2], folded)
if owner and owner ~= pk then
  return refuse('name', 'Another employee (#' .. owner .. ") is already called '" .. name .. "'.")
end
local locname = ''
if loc ~= '' then
  locname = redis.call('HGET', lockey, 'name')
  if not locname then return refuse('location', 'There is no location #' .. loc .. '.') end
end
local oldmgr, oldloc = old[3] or '', old[4] or ''
local moving = creating or oldmgr ~= mgr
local oldchain, newchain, h = {}, {}, 0
if moving then
  local refusal, before
  if not creating then
    oldchain, refusal = own_chain(pk, 'manager')
    if refusal then return refusal end
    h = height(pk)
    before = #oldchain + 1 + h
  end
  newchain, refusal = chain_under(pk, mgr, 'manager', mgrkey, 1 + h, before)
  if refusal then return refusal end
end
redis.call('HSET', KEYS[1], 'schema', '2', 'name', name, 'folded', folded, 'title', title, 'full_time', full,
  'location', loc, 'location_name', locname)
if creating then redis.call('HSET', KEYS[1], 'manager', '', 'direct', 0, 'total', 0) end
redis.call('HINCRBY', KEYS[1], 'version', 1)
local leaves = tonumber(ARGV[17])
for i = k, k + leaves - 1 do redis.call('SREM', KEYS[i], pk) end
for i = k + leaves, #KEYS do redis.call('SADD', KEYS[i], pk) end
if old[2] and old[2] ~= folded then
  redis.call('ZREM', KEYS[3], old[2] .. '\\0' .. pk)
  redis.call('HDEL', KEYS[2], old[2])
end
redis.call('ZADD', KEYS[3], 0, folded .. '\\0' .. pk)
redis.call('HSET', KEYS[2], folded, pk)
if creating or oldloc ~= loc then
  if oldloc ~= '' then redis.call('SREM', staff(oldloc), pk) end
  if loc ~= '' then redis.call('SADD', staffkey, pk) end
end
if oldloc ~= '' and old[2] and (oldloc ~= loc or old[2] ~= folded) then
  redis.call('ZREM', staff(oldloc) .. ARGV[18], old[2] .. '\\0' .. pk)
end
if loc ~= '' then redis.call('ZADD', staffnames, 0, folded .. '\\0' .. pk) end
if moving then
  local size = creating and 1 or tonumber(old[5] or 0) + 1
  relink(pk, oldchain, newchain, size, h, KEYS[4], mgrreports, mgrkey, entry(old[2] or '', pk), entry(folded, pk))
elseif oldmgr ~= '' and old[2] ~= folded then
  redis.call('ZREM', names(oldmgr), entry(old[2] or '', pk))
  redis.call('ZADD', names(oldmgr), 0, entry(folded, pk))
end
event(KEYS[5], creating and 'created' or 'updated', 'employee', pk, name, ARGV[7])
return {'ok', pk}
"""
)


def get_employee(pk: int) -> Employee | None:
    data = client().hgetall(keys.employee(pk))
    return Employee.from_hash(pk, data) if data else None


# The columns the employee list sorts by beside the name, each a field of the employee hash, and whether
# its values are numbers.
SORT_FIELDS = {"title": ("title", False), "location": ("location_name", False), "direct": ("direct", True),
               "total": ("total", True)}  # fmt: skip
SORT_LIMIT = 5000  # the most employees the whole list is sorted by another column than the name (a script's read)

# The whole list sorted by a field, names breaking ties. KEYS[1]: the lexical name index. ARGV: the most it may
# hold, the employee hash pattern, the field, "1" for numbers, "1" for descending, offset, count. {-1} past the
# most; else the count, then the page's ids.
_BY_FIELD = register(
    SORT_LUA
    + """
local n = redis.call('ZCARD', KEYS[1])
if n > tonumber(ARGV[1]) then return {-1} end
local numeric, desc = ARGV[4] == '1', ARGV[5] == '1'
local rows = {}
for rank, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local id = string.match(member, '%z(%d+)$')
  local value = lookup(ARGV[2] .. '->' .. ARGV[3], id) or ''
  if numeric then value = tonumber(value) or 0 else value = string.lower(value) end
  rows[#rows + 1] = {id, value, rank}
end
table.sort(rows, function(a, b)
  if a[2] ~= b[2] then
    if desc then return a[2] > b[2] end
    return a[2] < b[2]
  end
  return a[3] < b[3]
end)
local reply, offset, count = {n}, tonumber(ARGV[6]), tonumber(ARGV[7])
for i = offset + 1, math.min(#rows, offset + count) do reply[#reply + 1] = rows[i][1] end
return reply
"""
)


def employee_page(state) -> tuple[list[Employee], int, bool]:
    """One page of employees in name order, the total, and whether a search took ``SEARCH_LIMIT``
    matches and left more. Without a search, or with one or two letters (a prefix),
    one round trip: a script reads the page of the name index and each row's shown fields. A
    search of three letters or more takes two: the matching ids, then the fields.

    ``?q=`` with a word of three characters or more finds any part of a name (the trigram index:
    every match, up to ``SEARCH_LIMIT``, in name order, paged here); shorter text matches the start
    of the name (the lexical name index, the better tool for one or two letters)."""
    sorted_by = SORT_FIELDS.get(state.sort_key)
    if Query.parse(state.q).usable:
        found, capped = search_employee_ids(state.q)
        if sorted_by:
            found = _sorted_by(found, *sorted_by, state.descending)
        elif state.descending:
            found.reverse()
        total, pks = len(found), found[state.offset : state.offset + state.per_page]
    elif sorted_by:
        field, numeric = sorted_by
        args = [SORT_LIMIT, keys.employee_pattern(), field, int(numeric), int(state.descending), state.offset,
                state.per_page]  # fmt: skip
        reply = run_script(_BY_FIELD, [keys.employee_names()], args)
        if reply == [-1]:  # more employees than a sort by a field reads: search first (the page says so)
            raise TooManyToSort(SORT_LIMIT)
        total, pks, capped = reply[0], [int(pk) for pk in reply[1:]], False
    else:
        total, flat = name_page(keys.employee_names(), state, "employee")
        return sorted_rows(flat), total, False
    if not pks:
        return [], total, capped
    pipe = pipeline()
    for pk in pks:
        pipe.hmget(keys.employee(pk), *Employee.SUMMARY_FIELDS)
    return summaries(pks, pipe.execute()), total, capped


def employee_form_data(pk: int | None) -> tuple[Employee | None, list[tuple[int, str]]]:
    """What the employee form needs: the employee (None when ``pk`` is None or missing) and the
    location menu, in one round trip."""
    pipe = pipeline()
    if pk is not None:
        pipe.hgetall(keys.employee(pk))
    queue_location_choices(pipe)
    replies = execute(pipe)
    employee = Employee.from_hash(pk, replies[0]) if pk is not None and replies[0] else None
    return employee, read_location_choices(replies[-1])


def parse_employee_ref(text: str) -> int | str | None:
    """What a user typed for an employee: ``#12``/``12`` is an id (int), anything else a name.
    Only ASCII digits that fit an id count as one; ``#`` with anything else is no employee (None)."""
    text = text.strip()
    found = _ID.fullmatch(text)
    if found:
        return int(found.group(1))
    return None if text.startswith("#") else text


def resolve_employees(texts: list[str]) -> list[int | None]:
    """Ids for what users typed, names looked up together in one HMGET (ids are not checked
    here: every store function that takes an id refuses one that does not exist)."""
    refs = [parse_employee_ref(t) for t in texts]
    names = [fold(r) for r in refs if isinstance(r, str)]
    found = iter(client().hmget(keys.employee_by_name(), names) if names else [])
    out: list[int | None] = []
    for ref in refs:
        if isinstance(ref, str):
            value = next(found)
            out.append(int(value) if value else None)
        else:
            out.append(ref)
    return out


def resolve_employee(text: str) -> int | None:
    return resolve_employees([text])[0]


def save_employee(
    pk: int | None, values: dict, *, actor: Actor, old_name: str | None = None, version: str | None = None
) -> int:
    """Create (``pk`` None) or update an employee, its edges both ways, the counts along the two
    chains of ancestors, the indexes (the name's trigram sets too) and the event: one script. A
    hire first draws its id in a script that refuses a taken name or a missing manager or location
    without drawing one. ``values``: name, title, location, manager, full_time. ``old_name`` is the
    stored name the edit was made on (the trigram sets to leave are computed from it; the script
    checks it): without it, an edit that renames takes a second call. ``version`` is the one the
    edit form was opened at: the script refuses the save (``EditConflict``, with the employee as
    stored) when the employee is at another, and counts one more when it writes."""
    name = " ".join(values["name"].split())
    manager, location = values.get("manager"), values.get("location")
    mgr, loc = ("" if manager is None else str(manager)), ("" if location is None else str(location))
    creating = pk is None
    if creating:
        draw_keys = [keys.employee_by_name(), keys.employee_ids()]
        draw_keys += [keys.employee(manager)] if manager is not None else []
        draw_keys += [keys.location(location)] if location is not None else []
        (pk,) = written(_DRAW(draw_keys, [fold(name), name, mgr, loc, *limits()]))
    keys_ = [keys.employee(pk), keys.employee_by_name(), keys.employee_names(), keys.roots(), events_key()]
    if location is not None:
        keys_ += [keys.location(location), keys.staff(location), keys.staff_names(location)]
    if manager is not None:
        keys_ += [keys.employee(manager), keys.reports(manager)]
    full = "1" if values.get("full_time", True) else "0"
    args = [pk, "1" if creating else "0", name, fold(name), values.get("title", ""), full, loc, mgr]
    shown = "" if creating else (name if old_name is None else old_name)
    link = actor.link("employee", str(pk))

    def attempt(stored: str) -> list:
        leaves, joins = NAMES.diff(stored, name)
        argv = [*args, stored, len(leaves), keys.staff_names_suffix(), "" if creating else version or "", *limits()]
        return _SAVE([*keys_, *leaves, *joins], argv, actor, link)

    (saved,) = written(follow_renames(attempt, shown, pk), Employee, pk)
    return int(saved)


class TooManyToSort(Exception):
    """The whole list is too long to sort by a field other than the name: a search narrows it first."""

    def __init__(self, limit: int):
        super().__init__(f"more than {limit} employees to sort")
        self.limit = limit


def _sorted_by(ids: list[int], field: str, numeric: bool, descending: bool) -> list[int]:
    """A search's ids (at most ``SEARCH_LIMIT``) by one field of theirs, their order so far breaking ties:
    one pipeline of HGETs."""
    pipe = pipeline()
    for pk in ids:
        pipe.hget(keys.employee(pk), field)
    values = pipe.execute()
    keyed = [((float(v or 0) if numeric else (v or "").casefold()), rank, pk) for rank, (pk, v) in
             enumerate(zip(ids, values))]  # fmt: skip
    keyed.sort(key=lambda row: row[0], reverse=descending)
    return [pk for _, _, pk in keyed]
