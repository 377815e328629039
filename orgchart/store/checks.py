"""Integrity reads and repairs for ``check_integrity``: the whole graph at once, by SCAN (never KEYS).

The source of truth is each employee's own ``manager`` and ``location`` fields; everything
else (report sets, roots, staff sets, counts, name copies, folded names, name indexes) is
derived from them and can be rebuilt from them. Deriving is linear in the size of the org.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from config.redis import client
from orgchart import keys
from orgchart.documents import fold

_FIELDS = ("name", "manager", "location", "location_name", "ancestors", "direct", "total", "folded")


@dataclass
class Snapshot:
    employees: dict[int, dict[str, str]] = field(default_factory=dict)
    reports: dict[int, set[int]] = field(default_factory=dict)
    staff: dict[int, set[int]] = field(default_factory=dict)
    staff_names: dict[int, set[str]] = field(default_factory=dict)
    heights: dict[int, dict[int, int]] = field(default_factory=dict)  # each heights index: {report: score}
    report_names: dict[int, set[str]] = field(default_factory=dict)  # each report name index's members
    locations: dict[int, str] = field(default_factory=dict)
    location_folded: dict[int, str] = field(default_factory=dict)
    roots: set[int] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    byname: dict[str, str] = field(default_factory=dict)
    location_names: set[str] = field(default_factory=set)

    def manager(self, pk: int) -> int | None:
        value = self.employees[pk].get("manager") or ""
        return int(value) if value else None


_EMPLOYEE_PARTS = len(keys.employee("*").split(":"))  # a document's name, not one of its sets
_LOCATION_PARTS = len(keys.location("*").split(":"))


def _scan(pattern: str, kind: str) -> list[tuple[str, list[str]]]:
    return [(k, k.split(":")) for k in client().scan_iter(match=pattern, count=1000, _type=kind)]


def _bulk(commands, chunk: int = 1000) -> list:
    replies = []
    for i in range(0, len(commands), chunk):
        pipe = client().pipeline(transaction=False)
        for name, args, *options in commands[i : i + chunk]:
            getattr(pipe, name)(*args, **(options[0] if options else {}))
        replies += pipe.execute()
    return replies


BIG = 1000  # members past which a set is read by cursor, a thousand a command


def _members(names: list[str], size: str, whole: str, cursor: str) -> list:
    """The members of each set or sorted set named: small ones in one command each (pipelined), a
    large one (a manager of 100,000) by cursor, so that no command reads more than about ``BIG``."""
    sizes = _bulk([(size, (k,)) for k in names])
    small = [k for k, n in zip(names, sizes) if n <= BIG]
    whole_args = {"smembers": lambda k: (k,), "zrange": lambda k: (k, 0, -1)}
    if whole == "zrange_scored":
        read = dict(zip(small, _bulk([("zrange", (k, 0, -1), {"withscores": True}) for k in small])))
    else:
        read = dict(zip(small, _bulk([(whole, whole_args[whole](k)) for k in small])))
    r = client()
    return [read[k] if k in read else list(getattr(r, cursor)(k, count=BIG)) for k in names]


def snapshot() -> Snapshot:
    snap = Snapshot()
    hashes = [(int(p[-1]), k) for k, p in _scan(keys.employee("*"), "hash") if len(p) == _EMPLOYEE_PARTS]
    for (pk, _), row in zip(hashes, _bulk([("hmget", (k, *_FIELDS)) for _, k in hashes])):
        snap.employees[pk] = {f: v or "" for f, v in zip(_FIELDS, row)}
    sets = [(int(p[-2]), k) for k, p in _scan(keys.reports("*"), "set")]
    for (pk, _), members in zip(sets, _members([k for _, k in sets], "scard", "smembers", "sscan_iter")):
        snap.reports[pk] = {int(m) for m in members}
    named = [(int(p[-3]), k) for k, p in _scan(keys.report_names("*"), "zset")]
    for (pk, _), members in zip(named, _members([k for _, k in named], "zcard", "zrange", "zscan_iter")):
        snap.report_names[pk] = {m if isinstance(m, str) else m[0] for m in members}
    tall = [(int(p[-3]), k) for k, p in _scan(keys.report_heights("*"), "zset")]
    for (pk, _), members in zip(tall, _members([k for _, k in tall], "zcard", "zrange_scored", "zscan_iter")):
        snap.heights[pk] = {int(m): int(score) for m, score in members}
    places = [(int(p[-1]), k) for k, p in _scan(keys.location("*"), "hash") if len(p) == _LOCATION_PARTS]
    for (pk, _), (name, folded) in zip(places, _bulk([("hmget", (k, "name", "folded")) for _, k in places])):
        snap.locations[pk] = name or ""
        snap.location_folded[pk] = folded or ""
    staff = [(int(p[-2]), k) for k, p in _scan(keys.staff("*"), "set")]
    for (pk, _), members in zip(staff, _bulk([("smembers", (k,)) for _, k in staff])):
        snap.staff[pk] = {int(m) for m in members}
    indexes = [(int(p[-3]), k) for k, p in _scan(keys.staff_names("*"), "zset")]
    for (pk, _), members in zip(indexes, _bulk([("zrange", (k, 0, -1)) for _, k in indexes])):
        snap.staff_names[pk] = set(members)
    # The whole-org indexes are read by cursor (SSCAN/ZSCAN/HSCAN), never in one command:
    # at 200,000 people one HGETALL of the name index held Redis for half a second.
    r = client()
    snap.roots = {int(m) for m in r.sscan_iter(keys.roots(), count=1000)}
    snap.names = {m for m, _ in r.zscan_iter(keys.employee_names(), count=1000)}
    snap.byname = dict(r.hscan_iter(keys.employee_by_name(), count=1000))
    snap.location_names = {m for m, _ in r.zscan_iter(keys.location_names(), count=1000)}
    return snap


@dataclass
class Derived:
    """What the derived structures should hold, computed from the manager and location fields."""

    reports: dict[int, set[int]]
    roots: set[int]
    totals: dict[int, int]
    cycles: list[list[int]]
    staff: dict[int, set[int]]
    depth: int  # the longest chain of command
    heights: dict[int, int] = field(default_factory=dict)  # the longest chain of reports below each


def derive(snap: Snapshot) -> Derived:
    """Linear in the org: a walk down from the roots counts every total (deepest first); whoever
    it never reaches sits on a cycle or below one."""
    reports: dict[int, set[int]] = {}
    roots: set[int] = set()
    for pk in snap.employees:
        boss = snap.manager(pk)
        if boss is None or boss not in snap.employees:
            roots.add(pk)
        else:
            reports.setdefault(boss, set()).add(pk)
    order, level, depth = [], sorted(roots), 0
    while level:
        order.extend(level)
        level = [child for pk in level for child in reports.get(pk, ())]
        depth += 1 if level else 0
    totals = dict.fromkeys(snap.employees, 0)
    heights = dict.fromkeys(snap.employees, 0)
    for pk in reversed(order):
        boss = snap.manager(pk)
        if pk not in roots:
            totals[boss] += totals[pk] + 1
            heights[boss] = max(heights[boss], heights[pk] + 1)
    cycles = _cycles(snap, set(snap.employees) - set(order))
    staff: dict[int, set[int]] = {}
    for pk, row in snap.employees.items():
        if row.get("location"):
            staff.setdefault(int(row["location"]), set()).add(pk)
    return Derived(reports, roots, totals, cycles, staff, depth, heights)


def expected_heights(snap: Snapshot, found: Derived) -> dict[int, dict[int, int]]:
    """What each manager's heights index should hold: its reports who manage others, by height."""
    want: dict[int, dict[int, int]] = {}
    for boss, members in found.reports.items():
        tall = {pk: found.heights[pk] for pk in members if found.heights.get(pk)}
        if tall:
            want[boss] = tall
    return want


def _cycles(snap: Snapshot, unreached: set[int]) -> list[list[int]]:
    """The cycles among the people no walk from a root reaches: follow each one's manager until a
    person seen before; linear, each person is followed once."""
    found, done = set(), set()
    for start in sorted(unreached):
        path, at, cur = [], {}, start
        while cur in unreached and cur not in done and cur not in at:
            at[cur] = len(path)
            path.append(cur)
            cur = snap.manager(cur)
        if cur in at:
            found.add(tuple(sorted(path[at[cur] :])))
        done.update(path)
    return [list(c) for c in sorted(found)]


def rebuild() -> None:
    """Rewrite every derived structure of the graph from the manager and location fields, in one
    transaction (a repair, run by hand). A cycle is broken first by sending its lowest id to the top."""
    snap = snapshot()
    found = derive(snap)
    while found.cycles:
        snap.employees[found.cycles[0][0]]["manager"] = ""
        found = derive(snap)
    pipe = client().pipeline(transaction=True)
    pipe.delete(
        keys.roots(), keys.employee_names(), keys.employee_by_name(), keys.location_names(), keys.location_by_name()
    )
    pipe.delete(*[keys.reports(pk) for pk in snap.reports] or [keys.roots()])
    pipe.delete(*[keys.staff(pk) for pk in snap.staff] or [keys.roots()])
    pipe.delete(*[keys.staff_names(pk) for pk in snap.staff_names] or [keys.roots()])
    pipe.delete(*[keys.report_heights(pk) for pk in snap.heights] or [keys.roots()])
    pipe.delete(*[keys.report_names(pk) for pk in snap.report_names] or [keys.roots()])
    for pk, row in snap.employees.items():
        location = int(row["location"]) if row.get("location") else None
        if location is not None and location not in snap.locations:
            location = None
        pipe.hset(
            keys.employee(pk),
            mapping={
                "manager": row["manager"],
                "folded": fold(row["name"]),
                "direct": len(found.reports.get(pk, ())),
                "total": found.totals[pk],
                "location": "" if location is None else location,
                "location_name": snap.locations.get(location, "") if location else "",
            },
        )
        pipe.hdel(keys.employee(pk), "ancestors")  # the materialized chain of an older schema
        pipe.zadd(keys.employee_names(), {f"{fold(row['name'])}\0{pk}": 0})
        pipe.hset(keys.employee_by_name(), fold(row["name"]), pk)
    for boss, members in found.reports.items():
        ordered = sorted(members)
        for at in range(0, len(ordered), BIG):
            pipe.sadd(keys.reports(boss), *ordered[at : at + BIG])
            part = {f"{fold(snap.employees[pk]['name'])}\0{pk}": 0 for pk in ordered[at : at + BIG]}
            pipe.zadd(keys.report_names(boss), part)
    for boss, tall in expected_heights(snap, found).items():
        pipe.zadd(keys.report_heights(boss), tall)
    if found.roots:
        pipe.sadd(keys.roots(), *found.roots)
    for place, members in found.staff.items():
        if place in snap.locations:
            pipe.sadd(keys.staff(place), *members)
            names = {f"{fold(snap.employees[pk]['name'])}\0{pk}": 0 for pk in members}
            pipe.zadd(keys.staff_names(place), names)
    for pk, name in snap.locations.items():
        pipe.hset(keys.location(pk), "folded", fold(name))
        pipe.zadd(keys.location_names(), {f"{fold(name)}\0{pk}": 0})
        pipe.hset(keys.location_by_name(), fold(name), pk)
    pipe.execute()
