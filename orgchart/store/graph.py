"""The org chart as a graph on plain adjacency structures (the e-book's tree and graph pattern).

Each edge is kept both ways in one transaction: REPORTS_TO as the ``manager``
field plus the manager's ``:reports`` set, WORKS_AT as the ``location`` field
plus the location's ``:staff`` set. Three derived values ride on the employee
hash so that screens need no walk: ``ancestors`` (the chain of command, top
first: a materialized path), ``direct`` and ``total`` (report counts). A move
rewrites them under WATCH, so a concurrent move can never leave a cycle or a
count that disagrees with the sets.

Reads take one round trip per tree level at most: a whole level is one SUNION
of the report sets of the level above, never one command per employee.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import redis

from config.activity import Event
from config.redis import client
from config.store import queue_event
from orgchart import keys
from orgchart.documents import Employee, Location, fold

__all__ = [
    "Employee",
    "Location",
    "MAX_DEPTH",
    "NODE_LIMIT",
    "Busy",
    "Refused",
    "Actor",
    "Chain",
    "DepthReport",
    "get_employee",
    "employee_page",
    "employee_detail",
    "tree_children",
    "tree_root",
    "reports_by_depth",
    "subtree",
    "chain_of_command",
    "find_path",
    "resolve_employee",
    "resolve_employees",
    "save_employee",
    "move_employee",
    "delete_employee",
    "get_location",
    "location_page",
    "location_choices",
    "location_overview",
    "import_graph",
    "Imported",
    "LocationOverview",
    "Path",
    "staff_reporting_to",
    "save_location",
    "delete_location",
]

APP = "orgchart"
MAX_DEPTH = 10  # the deepest ``REPORTS_TO*N`` a screen asks for
RETRIES = 25  # bounded retry of a WATCH transaction
NODE_LIMIT = 100  # children shown per tree node, reports shown per depth
_LEX_END = "\U0010ffff"


class Refused(Exception):
    """A write refused for a reason the user can fix; ``field`` is the form field it belongs to."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class Busy(Exception):
    """Other writes kept changing the same part of the tree; nothing was written."""


@dataclass(frozen=True)
class Actor:
    """Who writes, and how to link to what they wrote (for the activity event)."""

    name: str
    link: Callable[[str, int], str] = lambda entity, pk: ""


def _event(pipe, actor: Actor, verb: str, entity: str, pk: int, label: str, gone: bool = False) -> None:
    link = "" if gone else actor.link(entity, pk)
    queue_event(pipe, Event(actor.name, verb, APP, entity, str(pk), label, link))


def _ids(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part] if text else []


def _join(ids) -> str:
    return ",".join(str(i) for i in ids)


def _member(name: str, pk: int) -> str:
    return f"{fold(name)}\0{pk}"


def _member_id(member: str) -> int:
    return int(member.rsplit("\0", 1)[1])


def _transact(work, retries: int = RETRIES):
    """Run ``work(pipe)`` (WATCH, reads, MULTI, writes) until EXEC succeeds, at most ``retries`` times."""
    for _ in range(retries):
        with client().pipeline(transaction=True) as pipe:
            try:
                result = work(pipe)
                pipe.execute()
                return result
            except redis.WatchError:
                continue
    raise Busy("The org chart changed under this edit too many times in a row; nothing was written. Try again.")


# --- reads ---------------------------------------------------------------------------------------


def _summary(pipe, pk: int) -> None:
    pipe.hmget(keys.employee(pk), *Employee.SUMMARY_FIELDS)


def _summaries(pks, values) -> list[Employee]:
    return [Employee.from_summary(pk, row) for pk, row in zip(pks, values) if row[0] is not None]


def get_employee(pk: int) -> Employee | None:
    data = client().hgetall(keys.employee(pk))
    return Employee.from_hash(pk, data) if data else None


def _search_range(q: str) -> tuple[str, str]:
    if not q:
        return "-", "+"
    return "[" + fold(q), "[" + fold(q) + _LEX_END


def _name_page(index: str, state) -> tuple[list[int], int]:
    """One page of ids from a lexical name index, and the count matching ``state.q`` (a prefix)."""
    low, high = _search_range(state.q)
    pipe = client().pipeline(transaction=False)
    pipe.zlexcount(index, low, high)
    if state.descending:
        pipe.zrevrangebylex(index, high, low, start=state.offset, num=state.per_page)
    else:
        pipe.zrangebylex(index, low, high, start=state.offset, num=state.per_page)
    total, members = pipe.execute()
    return [_member_id(m) for m in members], total


def employee_page(state) -> tuple[list[Employee], int]:
    """One page of employees in name order (``?q=`` matches the start of the name): two round trips,
    the ids from the name index, then the fields the list shows."""
    pks, total = _name_page(keys.employee_names(), state)
    if not pks:
        return [], total
    pipe = client().pipeline(transaction=False)
    for pk in pks:
        _summary(pipe, pk)
    return _summaries(pks, pipe.execute()), total


def _sort_children(pipe, set_key: str, offset: int = 0, count: int = NODE_LIMIT) -> None:
    """One command for the fields of up to ``count`` members of an id set, in name order."""
    get = ["#"] + [f"{keys.employee_pattern()}->{name}" for name in Employee.SUMMARY_FIELDS]
    pipe.sort(set_key, start=offset, num=count, by=f"{keys.employee_pattern()}->name", get=get, alpha=True)


def _sorted_rows(reply) -> list[Employee]:
    width = 1 + len(Employee.SUMMARY_FIELDS)
    rows = [reply[i : i + width] for i in range(0, len(reply), width)]
    return [Employee.from_summary(int(row[0]), row[1:]) for row in rows if row[1] is not None]


def tree_children(pk: int, offset: int = 0) -> list[Employee] | None:
    """Up to NODE_LIMIT direct reports of one node from ``offset``, by name, with their counts:
    one SORT ... GET, one round trip. None when there is no such employee."""
    pipe = client().pipeline(transaction=False)
    pipe.exists(keys.employee(pk))
    _sort_children(pipe, keys.reports(pk), offset)
    exists, rows = pipe.execute()
    return _sorted_rows(rows) if exists else None


def tree_root(pk: int | None, offset: int = 0) -> tuple[Employee | None, list[Employee]]:
    """The tree's root (an employee, or the top of the org when ``pk`` is None) and its
    first level from ``offset``, in one round trip."""
    pipe = client().pipeline(transaction=False)
    if pk is None:
        _sort_children(pipe, keys.roots(), offset)
        return None, _sorted_rows(pipe.execute()[0])
    pipe.hgetall(keys.employee(pk))
    _sort_children(pipe, keys.reports(pk), offset)
    data, children = pipe.execute()
    if not data:
        return None, []
    return Employee.from_hash(pk, data), _sorted_rows(children)


@dataclass
class DepthReport:
    """``REPORTS_TO*depth``: the reports exactly ``depth`` levels down, and the count per level."""

    depth: int
    levels: list[int]  # level sizes, 1..depth (shorter when the tree ends first)
    at_depth: list[Employee]  # up to NODE_LIMIT of them, by name
    at_depth_count: int

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


def _level_walk(first: set[int], depth: int) -> list[set[int]]:
    """Levels 1..depth below a node whose direct reports are ``first``: one SUNION per level."""
    levels = [first] if first else []
    while levels and len(levels) < depth:
        pipe = client().pipeline(transaction=False)
        pipe.sunion([keys.reports(pk) for pk in levels[-1]])
        below = {int(pk) for pk in pipe.execute()[0]}
        if not below:
            break
        levels.append(below)
    return levels


def employee_detail(pk: int, depth: int = 1) -> tuple[Chain, list[Employee], DepthReport] | None:
    """Everything the employee page shows: the employee and its direct reports (round trip 1),
    one SUNION per further level down to ``depth``, then the names of the chain of command and of
    the reports at ``depth`` (last round trip). ``depth`` 1 costs two round trips."""
    depth = max(1, min(depth, MAX_DEPTH))
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.employee(pk))
    _sort_children(pipe, keys.reports(pk))
    pipe.smembers(keys.reports(pk))
    data, children, first = pipe.execute()
    if not data:
        return None
    employee = Employee.from_hash(pk, data)
    levels = _level_walk({int(x) for x in first}, depth)
    deepest = sorted(levels[depth - 1]) if len(levels) >= depth else []
    pipe = client().pipeline(transaction=False)
    for manager in employee.ancestors:
        _summary(pipe, manager)
    shown = deepest[:NODE_LIMIT] if depth > 1 else []
    for report in shown:
        _summary(pipe, report)
    replies = pipe.execute() if employee.ancestors or shown else []
    managers = _summaries(employee.ancestors, replies[: len(employee.ancestors)])
    direct = _sorted_rows(children)
    at_depth = direct if depth == 1 else sorted(_summaries(shown, replies[len(employee.ancestors) :]), key=_by_name)
    report = DepthReport(depth, [len(level) for level in levels], at_depth, len(deepest))
    return Chain(employee, managers), direct, report


def _by_name(employee: Employee) -> str:
    return fold(employee.name)


def reports_by_depth(pk: int, depth: int) -> list[set[int]]:
    """The ids at each level 1..depth below ``pk``: one round trip per level."""
    depth = max(1, min(depth, MAX_DEPTH))
    first = {int(x) for x in client().smembers(keys.reports(pk))}
    return _level_walk(first, depth)


def subtree(pk: int) -> list[set[int]]:
    """Every level below ``pk`` to the bottom; its size is the sum of the level sizes."""
    first = {int(x) for x in client().smembers(keys.reports(pk))}
    return _level_walk(first, 10**6)


def chain_of_command(pk: int) -> Chain | None:
    """The employee and its managers up to the top: two round trips whatever the depth,
    since the chain is kept on the employee as a materialized path."""
    data = client().hgetall(keys.employee(pk))
    if not data:
        return None
    employee = Employee.from_hash(pk, data)
    pipe = client().pipeline(transaction=False)
    for manager in employee.ancestors:
        _summary(pipe, manager)
    replies = pipe.execute() if employee.ancestors else []
    return Chain(employee, _summaries(employee.ancestors, replies))


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
    """Degrees of separation through the lowest common manager: two round trips
    (both chains, then the names on the path). None when they share no manager."""
    pipe = client().pipeline(transaction=False)
    _summary(pipe, a)
    _summary(pipe, b)
    pipe.hget(keys.employee(a), "ancestors")
    pipe.hget(keys.employee(b), "ancestors")
    row_a, row_b, chain_a, chain_b = pipe.execute()
    if row_a[0] is None or row_b[0] is None:
        return None
    up_ids = [a, *reversed(_ids(chain_a or ""))]
    down_chain = [*_ids(chain_b or ""), b]  # top .. b
    position = {pk: i for i, pk in enumerate(up_ids)}
    common_index = next((i for i, pk in enumerate(reversed(down_chain)) if pk in position), None)
    if common_index is None:
        return None
    common = down_chain[len(down_chain) - 1 - common_index]
    up_path = up_ids[: position[common] + 1]
    down_path = down_chain[down_chain.index(common) + 1 :]
    wanted = up_path + down_path
    pipe = client().pipeline(transaction=False)
    for pk in wanted:
        _summary(pipe, pk)
    people = dict(zip(wanted, _summaries(wanted, pipe.execute())))
    if len(people) != len(wanted):
        return None
    return Path(people[a], people[b], [people[pk] for pk in up_path], [people[pk] for pk in down_path], people[common])


def parse_employee_ref(text: str) -> int | str:
    """What a user typed for an employee: ``#12``/``12`` is an id (int), anything else a name."""
    text = text.strip()
    return int(text.lstrip("#")) if text.lstrip("#").isdigit() else text


def resolve_employees(texts: list[str]) -> list[int | None]:
    """Ids for what users typed, names looked up together in one HMGET (ids are not checked
    here: every store function that takes an id refuses one that does not exist)."""
    refs = [parse_employee_ref(t) for t in texts]
    names = [fold(r) for r in refs if isinstance(r, str)]
    found = iter(client().hmget(keys.employee_by_name(), names) if names else [])
    return [r if isinstance(r, int) else (lambda v: int(v) if v else None)(next(found)) for r in refs]


def resolve_employee(text: str) -> int | None:
    return resolve_employees([text])[0]


# --- employee writes -----------------------------------------------------------------------------


def _subtree_under_watch(pipe, roots: dict[int, list[int]]) -> dict[int, list[int]]:
    """Every node below ``roots`` with its new chain of command, given each root's new chain.

    WATCHes each visited report set before reading it, one level per round trip (plus its WATCH),
    so a concurrent move into or out of the subtree makes the caller's EXEC fail and retry."""
    chains = dict(roots)
    level = list(roots)
    while level:
        report_keys = [keys.reports(pk) for pk in level]
        pipe.watch(*report_keys)
        nxt = []
        for parent, members in zip(level, _smembers_many(report_keys)):
            for child in members:
                chains[child] = [*chains[parent], parent]
                nxt.append(child)
        level = nxt
    return chains


def _smembers_many(set_keys: list[str]) -> list[list[int]]:
    # The reads go out on a second connection in one pipeline; the WATCH on the transaction's
    # connection, sent first, still catches any change made after it.
    pipe = client().pipeline(transaction=False)
    for key in set_keys:
        pipe.smembers(key)
    return [[int(x) for x in members] for members in pipe.execute()]


def _watch_read(pipe, pk: int) -> dict:
    pipe.watch(keys.employee(pk))
    return pipe.hgetall(keys.employee(pk))


def _validate_manager(pipe, pk: int | None, manager: int | None, field: str = "manager") -> list[int]:
    """The new chain of an employee (or of ``pk``'s reports, for ``field="successor"``) placed under
    ``manager``; refuses a cycle."""
    if manager is None:
        return []
    if pk is not None and manager == pk:
        raise Refused("An employee cannot report to themselves.", field)
    data = _watch_read(pipe, manager)
    if not data:
        raise Refused(f"There is no employee #{manager}.", field)
    chain = _ids(data.get("ancestors", ""))
    if pk is not None and pk in chain:
        if field == "successor":
            raise Refused(f"{data.get('name')} is in this employee's own team: pick someone outside it.", field)
        raise Refused(f"{data.get('name')} reports, directly or not, to this employee: that would make a cycle.", field)
    return [*chain, manager]


def _location_name(pipe, location: int | None) -> str:
    if location is None:
        return ""
    pipe.watch(keys.location(location))
    name = pipe.hget(keys.location(location), "name")
    if name is None:
        raise Refused(f"There is no location #{location}.", "location")
    return name


def _claim_name(pipe, name: str, pk: int | None, index: str = "", kind: str = "employee") -> None:
    """Refuse a name another document of ``kind`` holds; WATCHes the lookup so the check holds at EXEC."""
    index = index or keys.employee_by_name()
    pipe.watch(index)
    owner = pipe.hget(index, fold(name))
    if owner is not None and int(owner) != pk:
        raise Refused(f"Another {kind} (#{owner}) is already called {name!r}.", "name")


def _add_deltas(deltas: dict[int, int], ids, amount: int) -> None:
    for pk in ids:
        deltas[pk] = deltas.get(pk, 0) + amount


def _queue_deltas(pipe, deltas: dict[int, int], field_name: str = "total") -> None:
    for pk, amount in deltas.items():
        if amount:
            pipe.hincrby(keys.employee(pk), field_name, amount)


def _queue_move(pipe, pk: int, old_manager: int | None, chains: dict[int, list[int]]) -> None:
    """Queue the writes that put ``pk`` (and its subtree, whose new chains are ``chains``) under
    the last element of its new chain."""
    new_chain = chains[pk]
    new_manager = new_chain[-1] if new_chain else None
    if old_manager is not None:
        pipe.srem(keys.reports(old_manager), pk)
        pipe.hincrby(keys.employee(old_manager), "direct", -1)
    else:
        pipe.srem(keys.roots(), pk)
    if new_manager is not None:
        pipe.sadd(keys.reports(new_manager), pk)
        pipe.hincrby(keys.employee(new_manager), "direct", 1)
    else:
        pipe.sadd(keys.roots(), pk)
    pipe.hset(keys.employee(pk), "manager", "" if new_manager is None else str(new_manager))
    for node, chain in chains.items():
        pipe.hset(keys.employee(node), "ancestors", _join(chain))


def save_employee(pk: int | None, values: dict, actor: Actor) -> int:
    """Create (``pk`` None) or update an employee, its edges both ways, the counts and the indexes,
    in one WATCHed transaction. ``values``: name, title, location, manager, full_time."""
    name = " ".join(values["name"].split())
    manager, location = values.get("manager"), values.get("location")
    creating = pk is None

    def work(pipe):
        nonlocal pk
        old = {}
        if not creating:
            old = _watch_read(pipe, pk)
            if not old:
                raise Refused("This employee no longer exists.")
        _claim_name(pipe, name, pk)
        location_name = _location_name(pipe, location)
        moving = creating or Employee.from_hash(pk, old).manager != manager
        new_chain = _validate_manager(pipe, pk, manager) if moving else []
        if creating:  # an id is taken only once the input is known to be good
            pk = pipe.incr(keys.employee_ids())
        before = Employee.from_hash(pk, old) if old else Employee(pk, name)
        chains, deltas = {}, {}
        if moving:
            chains = _subtree_under_watch(pipe, {pk: new_chain}) if not creating else {pk: new_chain}
            size = len(chains)  # the employee and everyone below
            if not creating:
                _add_deltas(deltas, before.ancestors, -size)
            _add_deltas(deltas, new_chain, size)
        pipe.multi()
        doc = Employee(
            pk, name, values.get("title", ""), location, manager, values.get("full_time", True), before.direct,
            before.total, location_name=location_name, ancestors=chains.get(pk, before.ancestors),
        )  # fmt: skip
        fields = doc.to_hash()
        for derived in ("direct", "total") if not creating else ():
            fields.pop(derived)  # the counts are only ever changed by HINCRBY
        pipe.hset(keys.employee(pk), mapping=fields)
        if not creating and fold(before.name) != fold(name):
            pipe.zrem(keys.employee_names(), _member(before.name, pk))
            pipe.hdel(keys.employee_by_name(), fold(before.name))
        pipe.zadd(keys.employee_names(), {_member(name, pk): 0})
        pipe.hset(keys.employee_by_name(), fold(name), pk)
        if before.location != location or creating:
            if before.location is not None and not creating:
                pipe.srem(keys.staff(before.location), pk)
            if location is not None:
                pipe.sadd(keys.staff(location), pk)
        if moving:
            if creating:
                _queue_move_new(pipe, pk, manager)
            else:
                _queue_move(pipe, pk, before.manager, chains)
            _queue_deltas(pipe, deltas)
        _event(pipe, actor, "created" if creating else "updated", "employee", pk, name)
        return pk

    return _transact(work)


def _queue_move_new(pipe, pk: int, manager: int | None) -> None:
    if manager is None:
        pipe.sadd(keys.roots(), pk)
    else:
        pipe.sadd(keys.reports(manager), pk)
        pipe.hincrby(keys.employee(manager), "direct", 1)


def move_employee(pk: int, manager: int | None, actor: Actor) -> Employee:
    """Put ``pk`` under ``manager`` (None: the top). Refuses a cycle; atomic under WATCH."""

    def work(pipe):
        data = _watch_read(pipe, pk)
        if not data:
            raise Refused("This employee no longer exists.")
        before = Employee.from_hash(pk, data)
        new_chain = _validate_manager(pipe, pk, manager)
        if before.manager == manager:
            pipe.multi()
            return before
        chains = _subtree_under_watch(pipe, {pk: new_chain})
        deltas: dict[int, int] = {}
        _add_deltas(deltas, before.ancestors, -len(chains))
        _add_deltas(deltas, new_chain, len(chains))
        pipe.multi()
        _queue_move(pipe, pk, before.manager, chains)
        _queue_deltas(pipe, deltas)
        _event(pipe, actor, "moved", "employee", pk, before.name)
        return before

    return _transact(work)


def delete_employee(pk: int, successor: int | None, actor: Actor) -> Employee:
    """Delete an employee; ``successor`` (None: nobody, they go to the top) takes over the direct
    reports. The document, both edges, the indexes and every count change in one transaction."""

    def work(pipe):
        data = _watch_read(pipe, pk)
        if not data:
            raise Refused("This employee no longer exists.")
        gone = Employee.from_hash(pk, data)
        if successor == pk:
            raise Refused("Pick someone other than the employee being deleted.", "successor")
        new_chain = _validate_manager(pipe, pk, successor, "successor")
        pipe.watch(keys.reports(pk))
        direct = [int(x) for x in pipe.smembers(keys.reports(pk))]
        chains = _subtree_under_watch(pipe, {child: new_chain for child in direct})
        deltas: dict[int, int] = {}
        _add_deltas(deltas, gone.ancestors, -(len(chains) + 1))
        _add_deltas(deltas, new_chain, len(chains))
        pipe.multi()
        for child in direct:
            pipe.hset(keys.employee(child), "manager", "" if successor is None else str(successor))
        if direct:
            if successor is None:
                pipe.sadd(keys.roots(), *direct)
            else:
                pipe.sadd(keys.reports(successor), *direct)
                pipe.hincrby(keys.employee(successor), "direct", len(direct))
        for node, chain in chains.items():
            pipe.hset(keys.employee(node), "ancestors", _join(chain))
        if gone.manager is None:
            pipe.srem(keys.roots(), pk)
        else:
            pipe.srem(keys.reports(gone.manager), pk)
            pipe.hincrby(keys.employee(gone.manager), "direct", -1)
        deltas.pop(pk, None)
        _queue_deltas(pipe, deltas)
        if gone.location is not None:
            pipe.srem(keys.staff(gone.location), pk)
        pipe.zrem(keys.employee_names(), _member(gone.name, pk))
        pipe.hdel(keys.employee_by_name(), fold(gone.name))
        pipe.delete(keys.employee(pk), keys.reports(pk))
        _event(pipe, actor, "deleted", "employee", pk, gone.name, gone=True)
        return gone

    return _transact(work)


# --- locations -----------------------------------------------------------------------------------


def get_location(pk: int) -> Location | None:
    data = client().hgetall(keys.location(pk))
    return Location.from_hash(pk, data) if data else None


def location_page(state) -> tuple[list[tuple[Location, int]], int]:
    """One page of locations in name order with their head counts: two round trips."""
    pks, total = _name_page(keys.location_names(), state)
    if not pks:
        return [], total
    pipe = client().pipeline(transaction=False)
    for pk in pks:
        pipe.hgetall(keys.location(pk))
        pipe.scard(keys.staff(pk))
    replies = pipe.execute()
    rows = [(Location.from_hash(pk, replies[2 * i]), replies[2 * i + 1]) for i, pk in enumerate(pks) if replies[2 * i]]
    return rows, total


LOCATION_CHOICES = 500  # a form's location menu; an org with more would want a search field


def location_choices() -> list[tuple[int, str]]:
    """(id, name) of every location, for a form's menu: two round trips, capped."""
    members = client().zrange(keys.location_names(), 0, LOCATION_CHOICES - 1)
    pks = [_member_id(m) for m in members]
    if not pks:
        return []
    pipe = client().pipeline(transaction=False)
    for pk in pks:
        pipe.hget(keys.location(pk), "name")
    return [(pk, name) for pk, name in zip(pks, pipe.execute()) if name is not None]


def staff_reporting_to(location: int, manager: int) -> list[Employee]:
    """Staff of ``location`` who report, directly or not, to ``manager``: per tree level one
    round trip (the level's SUNION and its SMISMEMBER against the staff set), then their fields."""
    found: list[int] = []
    level = [int(x) for x in client().smembers(keys.reports(manager))]
    while level:
        pipe = client().pipeline(transaction=False)
        pipe.smismember(keys.staff(location), level)
        pipe.sunion([keys.reports(pk) for pk in level])
        here, below = pipe.execute()
        found.extend(pk for pk, flag in zip(level, here) if flag)
        level = [int(x) for x in below]
    shown = sorted(found)[:NODE_LIMIT]
    if not shown:
        return []
    pipe = client().pipeline(transaction=False)
    for pk in shown:
        _summary(pipe, pk)
    return sorted(_summaries(shown, pipe.execute()), key=_by_name)


def save_location(pk: int | None, name: str, actor: Actor) -> int:
    """Create or rename a location. A rename rewrites the name copied onto its staff, in the same
    transaction (the staff set is WATCHed so nobody joins or leaves meanwhile)."""
    name = " ".join(name.split())
    creating = pk is None

    def work(pipe):
        nonlocal pk
        before = None
        if not creating:
            pipe.watch(keys.location(pk), keys.staff(pk))
            data = pipe.hgetall(keys.location(pk))
            if not data:
                raise Refused("This location no longer exists.")
            before = Location.from_hash(pk, data)
        _claim_name(pipe, name, pk, keys.location_by_name(), "location")
        staff = [] if creating else pipe.smembers(keys.staff(pk))
        if creating:  # an id is taken only once the name is known to be free
            pk = pipe.incr(keys.location_ids())
        pipe.multi()
        pipe.hset(keys.location(pk), mapping=Location(pk, name).to_hash())
        if before and fold(before.name) != fold(name):
            pipe.zrem(keys.location_names(), _member(before.name, pk))
            pipe.hdel(keys.location_by_name(), fold(before.name))
        pipe.zadd(keys.location_names(), {_member(name, pk): 0})
        pipe.hset(keys.location_by_name(), fold(name), pk)
        if before and before.name != name:
            for member in staff:
                pipe.hset(keys.employee(int(member)), "location_name", name)
        _event(pipe, actor, "created" if creating else "updated", "location", pk, name)
        return pk

    return _transact(work)


def delete_location(
    pk: int,
    successor: int | None,
    actor: Actor,
    extra_keys: Callable[[int], list[str]] = lambda pk: [],
    extra_watch: Callable[[int], list[str]] = lambda pk: [],
) -> Location:
    """Delete a location; its staff move to ``successor`` (None: no location). ``extra_keys`` names
    the keys that hang off the location (its sensor buckets), read after ``extra_watch`` is
    WATCHed and removed in the same transaction."""

    def work(pipe):
        watched = [keys.location(pk), keys.staff(pk), *extra_watch(pk)]
        if successor is not None:
            watched.append(keys.location(successor))
        pipe.watch(*watched)
        data = pipe.hgetall(keys.location(pk))
        if not data:
            raise Refused("This location no longer exists.")
        gone = Location.from_hash(pk, data)
        if successor == pk:
            raise Refused("Pick another location for the staff.", "successor")
        new_name = ""
        if successor is not None:
            new_name = pipe.hget(keys.location(successor), "name")
            if new_name is None:
                raise Refused(f"There is no location #{successor}.", "successor")
        staff = [int(x) for x in pipe.smembers(keys.staff(pk))]
        hanging = extra_keys(pk)
        pipe.multi()
        for member in staff:
            pipe.hset(
                keys.employee(member),
                mapping={"location": "" if successor is None else str(successor), "location_name": new_name},
            )
        if staff and successor is not None:
            pipe.sadd(keys.staff(successor), *staff)
        pipe.zrem(keys.location_names(), _member(gone.name, pk))
        pipe.hdel(keys.location_by_name(), fold(gone.name))
        pipe.unlink(keys.location(pk), keys.staff(pk), *hanging)
        _event(pipe, actor, "deleted", "location", pk, gone.name, gone=True)
        return gone

    return _transact(work)


@dataclass
class LocationOverview:
    location: Location
    staff: list[Employee]
    staff_count: int
    latest: dict[str, str]  # the sensor's newest reading, for the charts


def location_overview(pk: int, offset: int, count: int) -> LocationOverview | None:
    """The location, its head count, one name-ordered page of staff (SORT ... BY name LIMIT ...
    GET the fields shown) and its sensor's newest reading: one round trip."""
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.location(pk))
    pipe.scard(keys.staff(pk))
    _sort_children(pipe, keys.staff(pk), offset, count)
    pipe.hgetall(keys.temp_latest(pk))
    data, total, rows, latest = pipe.execute()
    if not data:
        return None
    return LocationOverview(Location.from_hash(pk, data), _sorted_rows(rows), total, latest)


@dataclass(frozen=True)
class Imported:
    employees: int
    locations: int
    edges: int  # REPORTS_TO edges
    placed: int  # WORKS_AT edges
    first_employee: int
    first_location: int


def import_graph(data, actor: Actor) -> Imported:
    """Write a whole checked graph (``orgchart.importer.OrgData``: names are the identifiers) in
    one transaction: documents, both sides of every edge, chains, counts and indexes. The name
    indexes are WATCHed, so a name taken meanwhile fails the import instead of doubling a name."""
    people, places = list(data.people.items()), list(data.locations.items())

    def work(pipe):
        pipe.watch(keys.employee_by_name(), keys.location_by_name())
        taken = []
        if people:
            found = pipe.hmget(keys.employee_by_name(), [f for f, _ in people])
            taken += [f"employee {p.name!r}" for (_, p), owner in zip(people, found) if owner is not None]
        if places:
            found = pipe.hmget(keys.location_by_name(), [f for f, _ in places])
            taken += [f"location {n!r}" for (_, n), owner in zip(places, found) if owner is not None]
        if taken:
            raise Refused("Already in the org chart: " + ", ".join(taken[:20]) + (" …" if len(taken) > 20 else ""))
        # Ids are reserved only once the names are known to be free (a retry skips a block: harmless).
        first_e = pipe.incrby(keys.employee_ids(), len(people)) - len(people) + 1 if people else 0
        first_l = pipe.incrby(keys.location_ids(), len(places)) - len(places) + 1 if places else 0
        emp_id = {folded: first_e + i for i, (folded, _) in enumerate(people)}
        loc_id = {folded: first_l + i for i, (folded, _) in enumerate(places)}
        chains, direct, total = _import_tree(data, emp_id)
        pipe.multi()
        for folded, name in places:
            pk = loc_id[folded]
            pipe.hset(keys.location(pk), mapping=Location(pk, name).to_hash())
            pipe.zadd(keys.location_names(), {_member(name, pk): 0})
            pipe.hset(keys.location_by_name(), folded, pk)
        for folded, person in people:
            pk = emp_id[folded]
            boss = emp_id[person.manager] if person.manager is not None else None
            where = loc_id[person.location] if person.location is not None else None
            doc = Employee(
                pk, person.name, person.title, where, boss, person.full_time, direct.get(pk, 0), total.get(pk, 0),
                location_name=data.locations[person.location] if where else "", ancestors=chains[folded],
            )  # fmt: skip
            pipe.hset(keys.employee(pk), mapping=doc.to_hash())
            pipe.sadd(keys.reports(boss) if boss is not None else keys.roots(), pk)
            if where is not None:
                pipe.sadd(keys.staff(where), pk)
            pipe.zadd(keys.employee_names(), {_member(person.name, pk): 0})
            pipe.hset(keys.employee_by_name(), folded, pk)
        label = f"{len(people)} employees, {len(places)} locations"
        queue_event(pipe, Event(actor.name, "imported", APP, "employee", str(first_e), label, ""))
        return first_e, first_l

    first_e, first_l = _transact(work)
    edges = sum(1 for _, p in people if p.manager is not None)
    placed = sum(1 for _, p in people if p.location is not None)
    return Imported(len(people), len(places), edges, placed, first_e, first_l)


def _import_tree(data, emp_id: dict[str, int]):
    """Chains (top first), direct and total report counts of a graph given by names."""
    chains: dict[str, list[int]] = {}
    for folded in data.people:
        climb, cur = [], folded
        while cur not in chains:
            boss = data.people[cur].manager
            if boss is None:
                chains[cur] = []
                break
            climb.append(cur)
            cur = boss
        for below in reversed(climb):
            boss = data.people[below].manager
            chains[below] = [*chains[boss], emp_id[boss]]
    direct: dict[int, int] = {}
    total: dict[int, int] = {}
    for folded, person in data.people.items():
        if person.manager is not None:
            direct[emp_id[person.manager]] = direct.get(emp_id[person.manager], 0) + 1
        for boss in chains[folded]:
            total[boss] = total.get(boss, 0) + 1
    return chains, direct, total
