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


# Report sets read by one SUNION past the budget. Its reply is built as a set on the server: up to
# 512 ids (set-max-intset-entries) an intset, past it a hash table, which costs more an id. 128 sets
# of a manager's 3 or 4 reports each stay within the intset.
SETS_PER_SUNION = 128

_SUBTREE = Script("down", "subtree")  # only ``down``: a small walk carries no code it does not run

_DETAIL = Script("prelude", "down", "walk", "detail")

_CHAIN = Script("prelude", "down", "walk", "chain")

_CLIMB = Script("prelude", "down", "walk", "climb")

_PATH = Script("prelude", "down", "walk", "path")

_STAFF_UNDER = Script("prelude", "down", "walk", "staff_under")


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


_LEVEL = Script("level")


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
