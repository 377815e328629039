"""Reading the tree: its levels, the chain of command, reports by depth, the subtree, paths.

Only the edges are stored (the e-book's tree and graph pattern): the ``manager`` field and the
manager's ``reports`` set. The chain of command is derived by walking up the manager fields inside
a script; a subtree by walking the report sets down a level at a time inside one script (one
SUNION per chunk of a level), at most ``conf.walk_budget()`` steps per call. Every walk is bounded
per call whatever the shape of the tree: going down by the budget, going up by the managers a page
shows (``CHAIN_SHOWN``) or by a slice of ``conf.climb_slice()`` managers, a longer walk going on by
one more call a slice, only as far as its answer needs. Each screen is one round trip for an
ordinary org. Read scripts answer flat arrays (``core.Flat``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from config.redis import client
from config.store.scripts import execute
from orgchart import conf, keys
from orgchart.documents import Employee
from orgchart.store.core import (
    MAX_DEPTH,
    NAME_PAGE,
    NODE_LIMIT,
    PREFIXES,
    Flat,
    Script,
    by_name,
    pipeline,
    queue_sorted_children,
    sorted_rows,
    summaries,
)

# The nearest managers the employee page shows, the steps a path shows nearest each of its ends, and
# the managers a page of the chain of command shows.
CHAIN_SHOWN = 20
PATH_SHOWN = 10
CHAIN_PAGE = NODE_LIMIT

# Walk down one level at a time from ``cur`` (people at ``level``): the report sets of up to a
# chunk of a level's people (a quarter of the budget left, and at most ``WIDE`` ids, the
# ``conf.wide_set()`` each script is given) are read by one SUNION after a SCARD each (a tree's
# report sets are disjoint, so the union is exactly the next level's people). A set of more than
# ``WIDE`` ids stops the walk before it: the caller reads it by cursor. Each set read and
# each person found is a step; the walk stops
# when the budget is spent, below ``maxdepth`` or at the bottom. Ids stay the strings Redis holds
# (a number would cost a conversion each way). Returns the lists of people found, one per level
# below ``level``, and how many people of the last level walked had their sets read (a prefix:
# the rest, and everyone in the last list, are still to walk).
DOWN = """
local function down(cur, level, maxdepth, budget, WIDE)
  local lists, used, pos, blocked = {}, 0, 1, false
  repeat
    local nxt = {}
    pos = 1
    while pos <= #cur and used < budget and not blocked do
      -- a quarter of what is left: each set read brings its people (a few) into the budget too
      local chunk = math.max(1, math.min(1000, math.floor((budget - used) / 4)))
      local last, names, members = math.min(#cur, pos + chunk - 1), {}, 0
      -- No SUNION reads more than WIDE ids; a set larger than that (a manager of 100,000) is never
      -- read whole: the walk stops before it, and the caller reads it by cursor.
      for i = pos, last do
        local key = E .. cur[i] .. RS
        local n = redis.call('SCARD', key)
        if n > WIDE or (members + n > WIDE and #names > 0) then
          last, blocked = i - 1, n > WIDE
          break
        end
        names[#names + 1], members = key, members + n
      end
      if #names > 0 then
        local got = redis.call('SUNION', unpack(names))
        if #nxt == 0 then nxt = got else for _, id in ipairs(got) do nxt[#nxt + 1] = id end end
        used = used + #names + #got
      end
      pos = last + 1
    end
    lists[#lists + 1] = nxt
    level = level + 1
    local whole = pos > #cur
    cur = nxt
  until not whole or #nxt == 0 or level >= maxdepth or used >= budget
  return lists, pos - 1
end
"""
WALK = (
    DOWN
    + """-- The ids as numbers in ascending order: each converted once, then compared by table.sort itself
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
"""
)

# Report sets read by one SUNION past the budget. Its reply is built as a set on the server: up to
# 512 ids (set-max-intset-entries) an intset, past it a hash table, which costs more an id. 128 sets
# of a manager's 3 or 4 reports each stay within the intset.
SETS_PER_SUNION = 128

# KEYS: the first person's report set. ARGV: max depth, budget, the level of the people sent,
# then their ids (all at that level). One JSON array: how many of its last level the walk walked,
# then each level's ids: one string, not a reply element an id, which costs the server's reply and
# the client's parser a conversion per id; the client's json module reads it in one C call.
_SUBTREE = Script(
    DOWN
    + """
local cur = {}
for i = 12, #ARGV do cur[i - 11] = ARGV[i] end
local lists, walked = down(cur, tonumber(ARGV[10]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[11]))
local out = {walked}
for i, list in ipairs(lists) do out[i + 1] = '[' .. table.concat(list, ',') .. ']' end
return '[' .. table.concat(out, ',') .. ']'
""",
    prelude=PREFIXES,  # only ``down``: a small walk's script carries no code it does not run
)

# KEYS: the employee. ARGV: id, depth, budget, rows shown, managers shown. Flat: its hash, the
# nearest managers of its chain of command (top first) and the one above them ('' at the top), the
# level sizes, how many at the depth, whether the budget cut the walk short, and the first rows at
# the depth by id; empty when there is no such employee.
_DETAIL = Script(
    WALK
    + """
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
"""
)

# KEYS: the employee. ARGV: id, managers shown. Flat: its hash, the nearest managers of its chain of
# command (top first) and the one above them ('' at the top).
_CHAIN = Script(
    WALK
    + """
local data = redis.call('HGETALL', KEYS[1])
if #data == 0 then return {} end
local out = {}
put_employee_chain(out, ARGV[8], data, tonumber(ARGV[9]))
return out
"""
)

# KEYS: the employees the walks start from. ARGV: one or two ids, each followed by how many ids to
# walk. Flat, per id: the ids found (itself first, then its managers, nearest first) and the one
# above the farthest ('' at the top). A further slice of a long walk up: ids only, no rows.
_CLIMB = Script(
    WALK
    + """
local out = {}
for i = 8, #ARGV, 2 do
  local chain, above = climb(ARGV[i], tonumber(ARGV[i + 1]) - 1)
  table.insert(chain, 1, ARGV[i])
  put_list(out, chain)
  out[#out + 1] = above
end
return out
"""
)

# KEYS: both employees. ARGV: both ids, how many managers to walk up from each, rows shown at each
# end. Flat: 0 when one is missing, else 1; then per employee the ids walked from it (itself
# first) and the manager above the farthest ('' at the top); then the rows of the first ids walked
# from each (the ends of the path a page shows); then the row of the lowest manager the two walks
# share, when they meet (none otherwise).
_PATH = Script(
    WALK
    + """
local a, b, limit, shown = ARGV[8], ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 0 then return {0} end
local ua, above_a = climb(a, limit)
local ub, above_b = climb(b, limit)
table.insert(ua, 1, a)
table.insert(ub, 1, b)
local out, at = {1}, {}
put_list(out, ua)
out[#out + 1] = above_a
put_list(out, ub)
out[#out + 1] = above_b
put_rows(out, ua, shown)
put_rows(out, ub, shown)
for _, id in ipairs(ub) do at[id] = true end
local common = {}
for _, id in ipairs(ua) do
  if at[id] then common = {id} break end
end
put_rows(out, common)
return out
"""
)

# KEYS: the manager, the location's staff set. ARGV: manager id, budget, rows shown. Everyone below
# the manager who works there, flat: how many were found, whether the budget cut the walk, the
# first rows.
_STAFF_UNDER = Script(
    WALK
    + """
local lists, walked = down({ARGV[8]}, 0, 1000000, tonumber(ARGV[9]), tonumber(ARGV[11]))
local found = {}
for _, list in ipairs(lists) do
  for i = 1, #list, 1000 do
    local part = {unpack(list, i, math.min(i + 999, #list))}
    for j, here in ipairs(redis.call('SMISMEMBER', KEYS[2], unpack(part))) do
      if here == 1 then found[#found + 1] = part[j] end
    end
  end
end
found = by_id(found)
local out = {#found, cut({ARGV[8]}, lists, walked, 0, 1000000) and 1 or 0}
put_rows(out, found, tonumber(ARGV[10]))
return out
"""
)


def _queue_reports_page(pipe, pk: int, offset: int = 0) -> None:
    """One page of ``pk``'s direct reports in name order with their rows: a range of its report name
    index (``keys.report_names``), each row read in the same script, so its cost is the page's,
    whatever the head count (a SORT of the report set BY name reads every member's name)."""
    NAME_PAGE.queue(pipe, [keys.report_names(pk)], ["-", "+", offset, NODE_LIMIT, "0", "employee"])


def _reports_page(reply: list) -> list[Employee]:
    return sorted_rows(reply[1:])


def tree_children(pk: int, offset: int = 0) -> list[Employee] | None:
    """Up to NODE_LIMIT direct reports of one node from ``offset``, by name, with their counts:
    one round trip. None when there is no such employee."""
    pipe = pipeline()
    pipe.exists(keys.employee(pk))
    _queue_reports_page(pipe, pk, offset)
    exists, rows = execute(pipe)
    return _reports_page(rows) if exists else None


def tree_root(pk: int | None, offset: int = 0) -> tuple[Employee | None, list[Employee]]:
    """The tree's root (an employee, or the top of the org when ``pk`` is None) and its
    first level from ``offset``, in one round trip."""
    pipe = pipeline()
    if pk is None:
        queue_sorted_children(pipe, keys.roots(), offset)
        return None, sorted_rows(pipe.execute()[0])
    pipe.hgetall(keys.employee(pk))
    _queue_reports_page(pipe, pk, offset)
    data, children = execute(pipe)
    if not data:
        return None, []
    return Employee.from_hash(pk, data), _reports_page(children)


@dataclass
class DepthReport:
    """``REPORTS_TO*depth``: the reports exactly ``depth`` levels down, and the count per level."""

    depth: int
    levels: list[int]  # level sizes, 1..depth
    at_depth: list[Employee]  # up to NODE_LIMIT of them, by name
    at_depth_count: int
    cut: bool = False  # the walk met its budget: the counts are lower bounds

    @property
    def within(self) -> int:
        return sum(self.levels)

    @property
    def rows(self) -> list[tuple[int, int, int]]:
        """(level, exactly at it, within it) for each level down to ``depth``."""
        out, running = [], 0
        for level in range(1, self.depth + 1):
            size = self.levels[level - 1] if level <= len(self.levels) else 0
            running += size
            out.append((level, size, running))
        return out


@dataclass
class Chain:
    """The chain of command of one employee, top first: all of it, or its nearest managers and the
    id of the one above them (``above``; None when they reach the top)."""

    employee: Employee
    managers: list[Employee]
    above: int | None = None

    @property
    def depth(self) -> int:
        """The depth of the employee; a lower bound while ``above`` is set."""
        return len(self.managers)


def _chain_reply(pk: int, found: list) -> tuple[Chain, Flat]:
    """The chain a ``put_employee_chain`` reply starts with, and the reply read up to there."""
    reply = Flat(found)
    employee = Employee.from_hash(pk, reply.hash())
    managers, above = reply.rows(), reply.one()
    return Chain(employee, managers, int(above) if above else None), reply


def employee_detail(
    pk: int, depth: int = 1, managers: int = CHAIN_SHOWN
) -> tuple[Chain, list[Employee], DepthReport] | None:
    """Everything the employee page shows, in one round trip whatever the depth: a script walks up
    for the nearest ``managers`` of the chain of command and down to ``depth`` for the level sizes
    and the people at the depth (at most ``conf.walk_budget()`` people), beside a page of the direct
    reports' name index. A deeper chain costs no more: the page links to the rest."""
    depth = max(1, min(depth, MAX_DEPTH))
    pipe = pipeline()
    _DETAIL.queue(pipe, [keys.employee(pk)], [pk, depth, conf.walk_budget(), NODE_LIMIT, managers, conf.wide_set()])
    _queue_reports_page(pipe, pk)
    found, children = execute(pipe)
    if not found:
        return None
    chain, reply = _chain_reply(pk, found)
    sizes, count, cut = reply.list(), reply.one(), reply.one()
    direct = _reports_page(children)
    at_depth = direct if depth == 1 else sorted(reply.rows(), key=by_name)
    return chain, direct, DepthReport(depth, sizes, at_depth, count, bool(cut))


def _walk(pk: int, depth: int) -> list[list[int]]:
    """The ids at each level 1..depth below ``pk`` (each level in no order). A script walks down
    level by level within ``conf.walk_budget()`` steps: one round trip for any subtree within the
    budget, whatever its depth. A larger subtree goes on by plain SUNIONs (``_walk_on``), about a
    round trip a level, whatever its size."""
    budget = conf.walk_budget()
    # The levels' ids read as JSON: the parser's C turns them into numbers, where splitting strings
    # and converting each id in Python works a step per id.
    walked, *found = json.loads(_SUBTREE.read([keys.reports(pk)], [depth, budget, 0, conf.wide_set(), pk]))
    levels = [ids for ids in found if ids]
    pending: dict[int, list[str]] = {}  # level: ids whose report sets are still to read (past the budget)
    before = found[-2] if len(found) > 1 else [pk]
    if walked < len(before):
        pending[len(found) - 1] = [str(i) for i in before[walked:]]
    if found[-1] and len(found) < depth:
        pending[len(found)] = [str(i) for i in found[-1]]
    if not pending:
        return levels
    chunk = max(1, min(budget // 4, SETS_PER_SUNION))
    return _walk_on(pending, [list(ids) for ids in levels], depth, chunk)


def _walk_on(pending: dict[int, list[str]], levels: list[list[int]], depth: int, chunk: int) -> list[list[int]]:
    """Past the script's budget, ``levels`` filled in by ``_LEVEL`` calls of ``chunk`` report sets
    each (a SCARD each, then one SUNION of at most ``conf.wide_set()`` ids, the sets left over sent
    again), one pipeline a level: each asks for the report sets of the people the one before found.
    A set larger than that is read by SSCAN, that many ids a command."""
    r, wide = client(), conf.wide_set()
    while pending:
        pipe = r.pipeline(transaction=False)
        asked = []  # the level each call fills, in order
        for level, ids in sorted(pending.items()):
            for start in range(0, len(ids), chunk):
                _LEVEL.queue(pipe, keys.report_sets(ids[start : start + chunk]), [wide])
                asked.append(level)
        pending = {}
        for level, reply in zip(asked, execute(pipe)):
            got, large, left = json.loads(reply)
            for key in large:
                got += [int(m) for m in r.sscan_iter(key, count=wide)]
            if left:
                pending.setdefault(level, []).extend(keys.report_set_owners(left))
            if not got:
                continue
            while len(levels) <= level:
                levels.append([])
            levels[level].extend(got)
            if level + 1 < depth:
                pending.setdefault(level + 1, []).extend(map(str, got))
    return levels


# KEYS: report sets. ARGV: the most ids one SUNION reads. Their members, read by one SUNION of at
# most that many ids after a SCARD each: one JSON array of three lists, the ids found, the sets
# larger than that (for SSCAN) and those left for another call.
_LEVEL = Script(
    """
local wide, found, large, left, batch, total = tonumber(ARGV[8]), {}, {}, {}, {}, 0
for _, key in ipairs(KEYS) do
  local n = redis.call('SCARD', key)
  if n > wide then
    large[#large + 1] = '"' .. key .. '"'
  elseif n > 0 then
    if total + n > wide then
      left[#left + 1] = '"' .. key .. '"'
    else
      batch[#batch + 1], total = key, total + n
    end
  end
end
if #batch > 0 then found = redis.call('SUNION', unpack(batch)) end
return '[[' .. table.concat(found, ',') .. '],[' .. table.concat(large, ',') .. '],[' .. table.concat(left, ',') .. ']]'
""",
    prelude=PREFIXES,
)


def reports_by_depth(pk: int, depth: int) -> list[list[int]]:
    """The ids at each level 1..depth below ``pk``, in no order (the e-book's ``REPORTS_TO*N``):
    one round trip within the walk budget."""
    return _walk(pk, max(1, min(depth, MAX_DEPTH)))


def subtree(pk: int) -> list[list[int]]:
    """Every level below ``pk`` to the bottom, each in no order; its size is the sum of the level
    sizes. One round trip within ``conf.walk_budget()`` people, then one per level."""
    return _walk(pk, 10**9)


def chain_of_command(pk: int, limit: int | None = None) -> Chain | None:
    """The employee and its nearest ``limit`` managers: one round trip, one script that walks up at
    most ``limit`` manager fields. Without ``limit``, the whole chain to the top: one round trip up
    to ``conf.climb_slice()`` managers, then a script call per further slice of that many and one
    pipeline for their rows, so no call walks more than a slice whatever the depth."""
    step = conf.climb_slice()
    pipe = pipeline()
    _CHAIN.queue(pipe, [keys.employee(pk)], [pk, step if limit is None else limit])
    found = execute(pipe)[0]
    if not found:
        return None
    chain, _ = _chain_reply(pk, found)
    if limit is not None or chain.above is None:
        return chain
    seen = {str(pk), *(str(m.id) for m in chain.managers)}  # as the script's replies name them
    further = _Climb([], str(chain.above), seen)
    while further.above:
        further.extend(_climb([further.above], step)[0])
    rows = pipeline()
    for manager in further.ids:
        rows.hmget(keys.employee(manager), *Employee.SUMMARY_FIELDS)
    above = summaries(further.ids, rows.execute()) if further.ids else []
    return Chain(chain.employee, above[::-1] + chain.managers)


@dataclass
class _Climb:
    """A walk up the manager fields in slices: the ids found so far (nearest first), each one's
    place, and where the next slice starts ('' at the top). ``seen`` stops a walk round a cycle
    (``check_integrity`` reports it) at the first id met twice."""

    ids: list[str]
    above: str
    seen: set = field(default_factory=set)
    at: dict = field(default_factory=dict)

    def extend(self, part: tuple[list[str], str]) -> None:
        ids, above = part
        for pk in ids:
            if pk in self.seen:
                self.above = ""
                return
            self.seen.add(pk)
            self.at[pk] = len(self.ids)
            self.ids.append(pk)
        self.above = above


def _climb(starts: list[str], step: int) -> list[tuple[list[str], str]]:
    """One slice of ``step`` ids up from each of ``starts`` (one or two: a path's two walks), the
    start first: one script call, ids only."""
    reply = Flat(_CLIMB.read([keys.employee(pk) for pk in starts], [x for pk in starts for x in (pk, step)]))
    return [(reply.list(), reply.one()) for _ in starts]


@dataclass
class Path:
    """From one employee up to the lowest common manager and down to the other: the steps nearest
    each end and the common manager, with how many steps between them are not shown."""

    source: Employee
    target: Employee
    up: list[Employee]  # from the source up, below the common manager: the first shown
    up_hidden: int  # steps of the way up between ``up`` and the common manager, not shown
    common: Employee
    down_hidden: int  # steps of the way down between the common manager and ``down``, not shown
    down: list[Employee]  # from below the common manager to the target: the last shown

    @property
    def steps(self) -> list[Employee]:
        """The steps shown, in order (all of them when nothing is hidden)."""
        return [*self.up, self.common, *self.down]

    @property
    def rows(self) -> list[tuple[Employee | None, int]]:
        """(step, 0) for each step shown and (None, how many) where steps are not shown."""
        out = [(e, 0) for e in self.up]
        out += [(None, self.up_hidden)] if self.up_hidden else []
        out.append((self.common, 0))
        out += [(None, self.down_hidden)] if self.down_hidden else []
        return out + [(e, 0) for e in self.down]

    @property
    def degrees(self) -> int:
        return len(self.up) + self.up_hidden + self.down_hidden + len(self.down)


def _meeting(a: _Climb, b: _Climb, a_new: int = 0, b_new: int = 0) -> tuple[int, int] | None:
    """Where two walks up first share a manager: its place in each, looking at the ids each found
    from ``a_new`` and ``b_new`` on (those before were looked at already). The first of ``a`` that
    ``b`` holds is the lowest common one, even while either walk is a prefix of its chain."""
    found = [(a.at[pk], b.at[pk]) for pk in a.ids[a_new:] if pk in b.at]
    found += [(a.at[pk], b.at[pk]) for pk in b.ids[b_new:] if pk in a.at]
    return min(found) if found else None


def find_path(a: int, b: int, shown: int = PATH_SHOWN) -> Path | None:
    """Degrees of separation through the lowest common manager, with the ``shown`` steps nearest
    each end. One round trip while both walks up meet within ``conf.climb_slice()`` managers (a
    script walks up from both and reads the rows); a longer way goes on a slice of that many per
    script call, ids only, as far as the two walks take to meet, then reads the rows shown that
    the first call did not. None when one is missing or they share no manager."""
    step = conf.climb_slice()
    pipe = pipeline()
    _PATH.queue(pipe, [keys.employee(a), keys.employee(b)], [a, b, step, max(1, shown)])
    reply = Flat(execute(pipe)[0])
    if not reply.one():
        return None
    walks = []
    for _ in range(2):
        ids, above = reply.list(), reply.one()
        walk = _Climb([], above)
        walk.extend((ids, above))
        walks.append(walk)
    rows = {e.id: e for e in reply.rows() + reply.rows() + reply.rows()}
    met = _meeting(*walks)
    while met is None and any(w.above for w in walks):
        before = [len(w.ids) for w in walks]
        going = [w for w in walks if w.above]
        for walk, part in zip(going, _climb([w.above for w in going], step)):
            walk.extend(part)
        met = _meeting(*walks, *before)
    if met is None:
        return None
    i, j = met
    common = int(walks[0].ids[i])
    up = [int(pk) for pk in walks[0].ids[: min(i, shown)]]
    down = [int(pk) for pk in walks[1].ids[: min(j, shown)]][::-1]
    wanted = [pk for pk in (*up, common, *down) if pk not in rows]
    if wanted:  # the walks went past their first slice: the rows shown beyond it, one pipeline
        pipe = pipeline()
        for pk in wanted:
            pipe.hmget(keys.employee(pk), *Employee.SUMMARY_FIELDS)
        rows.update((e.id, e) for e in summaries(wanted, pipe.execute()))
    if any(pk not in rows for pk in (*up, common, *down, a, b)):
        return None  # deleted while the walk went on
    shown_up, shown_down = [rows[pk] for pk in up], [rows[pk] for pk in down]
    return Path(rows[a], rows[b], shown_up, i - len(up), rows[common], j - len(down), shown_down)


def staff_reporting_to(location: int, manager: int) -> list[Employee]:
    """Staff of ``location`` who report, directly or not, to ``manager`` (the first NODE_LIMIT by
    id, shown by name): one round trip, a script walking the manager's subtree within the budget."""
    pipe = pipeline()
    _STAFF_UNDER.queue(
        pipe, [keys.employee(manager), keys.staff(location)], [manager, conf.walk_budget(), NODE_LIMIT, conf.wide_set()]
    )
    reply = Flat(execute(pipe)[0])
    reply.take(2)  # how many, and whether the budget cut the walk
    return sorted(reply.rows(), key=by_name)
