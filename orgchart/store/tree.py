"""Walking down the tree: its levels, reports by depth, the subtree, the staff under a manager,
and the employee page, which also climbs its nearest managers (``ancestors``).

Only the edges are stored (the e-book's tree and graph pattern): the ``manager`` field and the
manager's ``reports`` set. A subtree is derived by walking the report sets down a level at a time
inside one script (one SUNION per chunk of a level), at most ``conf.walk_budget()`` steps per call,
whatever the shape of the tree; a larger one goes on past the budget about a round trip a level.
Each screen is one round trip for an ordinary org. Read scripts answer flat arrays (``core.Flat``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from config.redis import client
from config.store.scripts import execute
from orgchart import conf, keys
from orgchart.documents import Employee
from orgchart.store.ancestors import CHAIN_SHOWN, Chain, read_chain
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
)

# Report sets read by one SUNION past the budget. Its reply is built as a set on the server: up to
# 512 ids (set-max-intset-entries) an intset, past it a hash table, which costs more an id. 128 sets
# of a manager's 3 or 4 reports each stay within the intset.
SETS_PER_SUNION = 128

# Only ``down``, or none: a small walk carries no code it does not run.
_SUBTREE = Script("down", "subtree")
_LEVEL = Script("level")
_DETAIL = Script("prelude", "down", "walk", "detail")
_STAFF_UNDER = Script("prelude", "down", "walk", "staff_under")


def _queue_reports_page(pipe, pk: int, offset: int = 0) -> None:
    """One page of ``pk``'s direct reports by name, from its report name index: the page's cost,
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
    chain, reply = read_chain(pk, found)
    sizes, count, cut = reply.list(), reply.one(), reply.one()
    direct = _reports_page(children)
    at_depth = direct if depth == 1 else sorted(reply.rows(), key=by_name)
    return chain, direct, DepthReport(depth, sizes, at_depth, count, bool(cut))


def _walk(pk: int, depth: int) -> list[list[int]]:
    """The ids at each level 1..depth below ``pk`` (each level in no order): one round trip within
    ``conf.walk_budget()`` steps whatever the depth; past it ``_walk_on``, about a round trip a level."""
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
    each, one pipeline a level; a set of more than ``conf.wide_set()`` ids is read by SSCAN."""
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


def reports_by_depth(pk: int, depth: int) -> list[list[int]]:
    """The ids at each level 1..depth below ``pk``, in no order (the e-book's ``REPORTS_TO*N``):
    one round trip within the walk budget."""
    return _walk(pk, max(1, min(depth, MAX_DEPTH)))


def subtree(pk: int) -> list[list[int]]:
    """Every level below ``pk`` to the bottom, each in no order; its size is the sum of the level
    sizes. One round trip within ``conf.walk_budget()`` people, then one per level."""
    return _walk(pk, 10**9)


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
