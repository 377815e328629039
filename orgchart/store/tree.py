"""Reading the tree: its levels, the chain of command, reports by depth, the subtree, paths.

Only the edges are stored (the e-book's tree and graph pattern): the ``manager`` field and the
manager's ``reports`` set. The chain of command is derived by walking up the manager fields inside
one script; a subtree by walking the report sets down inside one script, at most
``conf.walk_budget()`` steps per call. Each screen is one round trip whatever the depth.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from orgchart import conf, keys
from orgchart.documents import Employee
from orgchart.store.core import (
    MAX_DEPTH,
    NODE_LIMIT,
    Script,
    by_name,
    pipeline,
    queue_sorted_children,
    run,
    sorted_rows,
    summaries,
)

__all__ = [
    "Chain",
    "DepthReport",
    "Path",
    "tree_children",
    "tree_root",
    "employee_detail",
    "reports_by_depth",
    "subtree",
    "chain_of_command",
    "find_path",
    "staff_reporting_to",
]

# Walk down breadth first from a frontier, at most ``budget`` steps (a report set read, a person
# found); a node is queued for expansion only above ``maxdepth``. Returns the index of the first
# queued node not expanded.
WALK = """
local function walk(queue, levels, maxdepth, budget, visit)
  local i, seen = 1, 0
  while i <= #queue and seen < budget do
    local node, level = queue[i], levels[i]
    i = i + 1
    seen = seen + 1  -- a set read, even an empty one, counts
    for _, m in ipairs(redis.call('SMEMBERS', reports(node))) do
      seen = seen + 1
      visit(m, level + 1)
      if level + 1 < maxdepth then
        queue[#queue + 1] = m
        levels[#levels + 1] = level + 1
      end
    end
  end
  return i
end
local function numeric(a, b) return tonumber(a) < tonumber(b) end
local function rows(ids, limit)
  local out = {}
  for i = 1, math.min(#ids, limit) do out[i] = {ids[i], summary(ids[i])} end
  return out
end
local function chain_rows(id)
  local chain, out = up(id), {}
  for i = #chain, 1, -1 do out[#out + 1] = {chain[i], summary(chain[i])} end
  return out
end
"""

# ARGV: max depth, budget, then the queue's head as id, level pairs (the caller keeps the rest
# of the queue, so nothing it holds travels twice). Walks on from them breadth first within the
# budget; returns how many of the people sent it expanded, the people found (id, level pairs) and
# those found but not yet expanded (id, level pairs), for the caller's queue.
_SUBTREE = Script(
    WALK
    + """
local maxdepth, budget = tonumber(ARGV[8]), tonumber(ARGV[9])
local queue, levels, found = {}, {}, {}
for i = 10, #ARGV, 2 do queue[#queue + 1] = ARGV[i]; levels[#levels + 1] = tonumber(ARGV[i + 1]) end
local sent = #queue
local stop = walk(queue, levels, maxdepth, budget, function(id, level)
  found[#found + 1] = id; found[#found + 1] = level
end)
local rest = {}
for j = math.max(stop, sent + 1), #queue do rest[#rest + 1] = queue[j]; rest[#rest + 1] = levels[j] end
return {math.min(stop - 1, sent), found, rest}
"""
)

# KEYS: the employee. ARGV: id, depth, budget, rows shown. Returns its hash, its chain of command
# (top first), the level sizes, how many at the depth, whether the budget cut the walk short, and
# the first rows at the depth by id.
_DETAIL = Script(
    WALK
    + """
local pk, depth, budget, limit = ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local data = redis.call('HGETALL', KEYS[1])
if #data == 0 then return {} end
local sizes, deepest = {}, {}
for i = 1, depth do sizes[i] = 0 end
local queue, levels = {pk}, {0}
local stop = walk(queue, levels, depth, budget, function(id, level)
  sizes[level] = sizes[level] + 1
  if level == depth then deepest[#deepest + 1] = id end
end)
table.sort(deepest, numeric)
local cut = stop <= #queue and 1 or 0
return {data, chain_rows(pk), sizes, #deepest, cut, depth > 1 and rows(deepest, limit) or {}}
"""
)

# KEYS: the employee. ARGV: id. Its hash and its chain of command, top first.
_CHAIN = Script(
    WALK
    + """
local data = redis.call('HGETALL', KEYS[1])
if #data == 0 then return {} end
return {data, chain_rows(ARGV[8])}
"""
)

# KEYS: both employees. ARGV: both ids. The way up from the first to the lowest manager they
# share, and the way down from below it to the second (rows); empty when there is none.
_PATH = Script(
    WALK
    + """
local a, b = ARGV[8], ARGV[9]
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 0 then return {} end
local ua, ub = up(a), up(b)
table.insert(ua, 1, a)
table.insert(ub, 1, b)
local at = {}
for i, id in ipairs(ua) do at[id] = i end
for j, id in ipairs(ub) do
  if at[id] then
    local upward, downward = {}, {}
    for i = 1, at[id] do upward[#upward + 1] = ua[i] end
    for k = j - 1, 1, -1 do downward[#downward + 1] = ub[k] end
    return {rows(upward, #upward), rows(downward, #downward)}
  end
end
return {}
"""
)

# KEYS: the manager, the location's staff set. ARGV: manager id, budget, rows shown. Everyone below
# the manager who works there: how many were found, whether the budget cut the walk, the first rows.
_STAFF_UNDER = Script(
    WALK
    + """
local queue, levels, found = {ARGV[8]}, {0}, {}
local stop = walk(queue, levels, 1000000, tonumber(ARGV[9]), function(id, level)
  if redis.call('SISMEMBER', KEYS[2], id) == 1 then found[#found + 1] = id end
end)
table.sort(found, numeric)
return {#found, stop <= #queue and 1 or 0, rows(found, tonumber(ARGV[10]))}
"""
)


def _row(pair) -> Employee | None:
    found = summaries([pair[0]], [pair[1]])
    return found[0] if found else None


def _rows(pairs) -> list[Employee]:
    return [e for e in map(_row, pairs) if e is not None]


def _hash(flat: list) -> dict:
    return dict(zip(flat[::2], flat[1::2]))


def tree_children(pk: int, offset: int = 0) -> list[Employee] | None:
    """Up to NODE_LIMIT direct reports of one node from ``offset``, by name, with their counts:
    one SORT ... GET, one round trip. None when there is no such employee."""
    pipe = pipeline()
    pipe.exists(keys.employee(pk))
    queue_sorted_children(pipe, keys.reports(pk), offset)
    exists, rows = pipe.execute()
    return sorted_rows(rows) if exists else None


def tree_root(pk: int | None, offset: int = 0) -> tuple[Employee | None, list[Employee]]:
    """The tree's root (an employee, or the top of the org when ``pk`` is None) and its
    first level from ``offset``, in one round trip."""
    pipe = pipeline()
    if pk is None:
        queue_sorted_children(pipe, keys.roots(), offset)
        return None, sorted_rows(pipe.execute()[0])
    pipe.hgetall(keys.employee(pk))
    queue_sorted_children(pipe, keys.reports(pk), offset)
    data, children = pipe.execute()
    if not data:
        return None, []
    return Employee.from_hash(pk, data), sorted_rows(children)


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
    """The chain of command of one employee, top first."""

    employee: Employee
    managers: list[Employee]

    @property
    def depth(self) -> int:
        return len(self.managers)


def employee_detail(pk: int, depth: int = 1) -> tuple[Chain, list[Employee], DepthReport] | None:
    """Everything the employee page shows, in one round trip whatever the depth: a script walks up
    for the chain of command and down to ``depth`` for the level sizes and the people at the depth
    (at most ``conf.walk_budget()`` people), beside one SORT ... GET for the direct reports."""
    depth = max(1, min(depth, MAX_DEPTH))
    pipe = pipeline()
    _DETAIL.queue(pipe, [keys.employee(pk)], [pk, depth, conf.walk_budget(), NODE_LIMIT])
    queue_sorted_children(pipe, keys.reports(pk))
    found, children = run(pipe)
    if not found:
        return None
    data, chain, sizes, count, cut, deepest = found
    employee = Employee.from_hash(pk, _hash(data))
    direct = sorted_rows(children)
    at_depth = direct if depth == 1 else sorted(_rows(deepest), key=by_name)
    return Chain(employee, _rows(chain)), direct, DepthReport(depth, list(sizes), at_depth, count, bool(cut))


WALK_CALLS = 4  # bounded script calls per round trip of a walk down


def _walk(pk: int, depth: int) -> list[set[int]]:
    """The ids at each level 1..depth below ``pk``, breadth first, by script calls of at most
    ``conf.walk_budget()`` steps each, so that none holds the server long: one round trip for any
    subtree within the budget, whatever its depth. The queue of people still to expand is kept
    here; a call gets a quarter of a budget of them, and once the queue holds more, ``WALK_CALLS``
    calls with disjoint parts of it go out in one round trip."""
    levels: list[set[int]] = []
    budget = conf.walk_budget()
    share = max(1, budget // 4)  # people sent per call: each costs a set read and its reports
    queue: deque[tuple[int, int]] = deque([(pk, 0)])
    while queue:
        pipe, batches = pipeline(), []
        while queue and len(batches) < WALK_CALLS:
            batch = [queue.popleft() for _ in range(min(len(queue), share))]
            _SUBTREE.queue(pipe, [keys.reports(pk)], [depth, budget, *(v for item in batch for v in item)])
            batches.append(batch)
        replies = run(pipe)
        for batch, (expanded, _, _) in reversed(list(zip(batches, replies))):
            queue.extendleft(reversed(batch[expanded:]))  # what a call had no budget for goes first next time
        for _, found, rest in replies:
            for i in range(0, len(found), 2):
                person, level = int(found[i]), int(found[i + 1])
                while len(levels) < level:
                    levels.append(set())
                levels[level - 1].add(person)
            queue.extend((int(rest[i]), int(rest[i + 1])) for i in range(0, len(rest), 2))
    return levels


def reports_by_depth(pk: int, depth: int) -> list[set[int]]:
    """The ids at each level 1..depth below ``pk`` (the e-book's ``REPORTS_TO*N``): one round trip
    within the walk budget."""
    return _walk(pk, max(1, min(depth, MAX_DEPTH)))


def subtree(pk: int) -> list[set[int]]:
    """Every level below ``pk`` to the bottom; its size is the sum of the level sizes. One round
    trip per ``conf.walk_budget()`` people, whatever the depth."""
    return _walk(pk, 10**9)


def chain_of_command(pk: int) -> Chain | None:
    """The employee and its managers up to the top: one round trip whatever the depth (a script
    walks up the manager fields)."""
    pipe = pipeline()
    _CHAIN.queue(pipe, [keys.employee(pk)], [pk])
    found = run(pipe)[0]
    if not found:
        return None
    data, chain = found
    return Chain(Employee.from_hash(pk, _hash(data)), _rows(chain))


@dataclass
class Path:
    """From one employee up to the lowest common manager and down to the other."""

    source: Employee
    target: Employee
    up: list[Employee]  # source .. common manager
    down: list[Employee]  # below the common manager .. target
    common: Employee | None

    @property
    def steps(self) -> list[Employee]:
        return self.up + self.down

    @property
    def degrees(self) -> int:
        return len(self.steps) - 1


def find_path(a: int, b: int) -> Path | None:
    """Degrees of separation through the lowest common manager: one round trip (a script walks up
    from both). None when one is missing or they share no manager."""
    pipe = pipeline()
    _PATH.queue(pipe, [keys.employee(a), keys.employee(b)], [a, b])
    found = run(pipe)[0]
    if not found:
        return None
    upward, downward = _rows(found[0]), _rows(found[1])
    steps = upward + downward
    if len(steps) != len(found[0]) + len(found[1]):
        return None
    return Path(steps[0], steps[-1], upward, downward, upward[-1])


def staff_reporting_to(location: int, manager: int) -> list[Employee]:
    """Staff of ``location`` who report, directly or not, to ``manager`` (the first NODE_LIMIT by
    id, shown by name): one round trip, a script walking the manager's subtree within the budget."""
    pipe = pipeline()
    _STAFF_UNDER.queue(pipe, [keys.employee(manager), keys.staff(location)], [manager, conf.walk_budget(), NODE_LIMIT])
    _, _, rows = run(pipe)[0]
    return sorted(_rows(rows), key=by_name)
