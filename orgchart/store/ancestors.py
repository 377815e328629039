"""Walking up the tree: the chain of command and the path between two people.

Only the edges are stored (the e-book's tree and graph pattern): the ``manager`` field and the
manager's ``reports`` set. The chain of command is derived by walking up the manager fields inside
a script. A walk up is bounded per call whatever the shape of the tree: by the managers a page
shows (``CHAIN_SHOWN``) or by a slice of ``conf.climb_slice()`` managers, a longer walk going on by
one more call a slice, only as far as its answer needs. Walking down is ``tree``'s; both share the
walk prelude (``lua/walk.lua``). Read scripts answer flat arrays (``core.Flat``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from config.store.scripts import execute
from orgchart import conf, keys
from orgchart.documents import Employee
from orgchart.store.core import NODE_LIMIT, Flat, Script, pipeline, summaries

# The nearest managers the employee page shows, the steps a path shows nearest each of its ends, and
# the managers a page of the chain of command shows.
CHAIN_SHOWN = 20
PATH_SHOWN = 10
CHAIN_PAGE = NODE_LIMIT

_CHAIN = Script("prelude", "walk", "chain")
_CLIMB = Script("prelude", "walk", "climb")
_PATH = Script("prelude", "walk", "path")


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


def read_chain(pk: int, found: list) -> tuple[Chain, Flat]:
    """The chain a ``put_employee_chain`` reply starts with, and the reply read up to there."""
    reply = Flat(found)
    employee = Employee.from_hash(pk, reply.hash())
    managers, above = reply.rows(), reply.one()
    return Chain(employee, managers, int(above) if above else None), reply


def chain_of_command(pk: int, limit: int | None = None) -> Chain | None:
    """The employee and its nearest ``limit`` managers: one script, one round trip. Without ``limit``,
    the whole chain to the top, a script call per ``conf.climb_slice()`` managers and one pipeline
    for the rows past the first slice, so no call walks more than a slice whatever the depth."""
    step = conf.climb_slice()
    pipe = pipeline()
    _CHAIN.queue(pipe, [keys.employee(pk)], [pk, step if limit is None else limit])
    found = execute(pipe)[0]
    if not found:
        return None
    chain, _ = read_chain(pk, found)
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
    each end: one round trip while both walks up meet within ``conf.climb_slice()`` managers, then a
    slice per call, ids only, until they meet. None when one is missing or they share no manager."""
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
