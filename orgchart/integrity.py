"""Invariants of the org chart: every derived structure agrees with the manager and location
fields it derives from, the graph has no cycle, and the temperature rollups equal the samples."""

from __future__ import annotations

from collections import defaultdict

from config.invariants import Violation, gram_drift, invariant
from orgchart import keys
from orgchart.documents import fold
from orgchart.store import checks as audit
from orgchart.store import locations, sensorchecks
from orgchart.store import names as store_names
from orgchart.store.core import member


def _state():
    snap = audit.snapshot()
    return snap, audit.derive(snap)


@invariant("orgchart", "manager fields and report sets agree", repair=audit.rebuild)
def reports_agree():
    snap, found = _state()
    for boss in set(snap.reports) | set(found.reports):
        stored, actual = snap.reports.get(boss, set()), found.reports.get(boss, set())
        if stored != actual:
            yield Violation(
                f"employee {boss}: report set {sorted(stored)} but manager fields say {sorted(actual)}",
                [keys.reports(boss)],
            )
    if snap.roots != found.roots:
        yield Violation(f"roots {sorted(snap.roots)} but {sorted(found.roots)} have no manager", [keys.roots()])
    for pk in snap.employees:
        boss = snap.manager(pk)
        if boss is not None and boss not in snap.employees:
            yield Violation(f"employee {pk} reports to missing employee {boss}", [keys.employee(pk)])


@invariant("orgchart", "the reporting graph has no cycle", repair=audit.rebuild)
def acyclic():
    _, found = _state()
    for cycle in found.cycles:
        yield Violation(f"cycle through employees {cycle}", [keys.employee(pk) for pk in cycle])


@invariant("orgchart", "report counts match the tree", repair=audit.rebuild)
def counts():
    """``direct`` and ``total`` are the only derived values on an employee: every move changes them
    along two chains of ancestors, so each must equal what a walk of the tree gives."""
    snap, found = _state()
    for pk, row in snap.employees.items():
        direct = len(found.reports.get(pk, ()))
        if row["direct"] != str(direct) or row["total"] != str(found.totals[pk]):
            yield Violation(
                f"employee {pk}: direct/total {row['direct']}/{row['total']}, tree gives {direct}/{found.totals[pk]}",
                [keys.employee(pk)],
            )


@invariant("orgchart", "each manager's heights index scores its reports who manage others", repair=audit.rebuild)
def heights_agree():
    """A move reads the depth of the team it moves from the heights index (its top score plus one):
    a wrong score would let a chain of command grow past ORGCHART_MAX_DEPTH, or refuse a move that fits."""
    snap, found = _state()
    want = audit.expected_heights(snap, found)
    for boss in sorted(set(snap.heights) | set(want)):
        have, should = snap.heights.get(boss, {}), want.get(boss, {})
        if have != should:
            wrong = sorted(set(have.items()) ^ set(should.items()))
            yield Violation(
                f"employee {boss}: heights index differs from the tree in {len(wrong)} entries (e.g. {wrong[:5]})",
                [keys.report_heights(boss)],
            )


def _name_index_drift(snap, stored: dict, edges: dict):
    """(owner, entries that differ) of each name index (of a manager's reports or a location's staff)
    that does not list exactly the people its edges give."""
    for owner in sorted(set(stored) | set(edges)):
        want = {member(snap.employees[pk]["name"], pk) for pk in edges.get(owner, ())}
        have = stored.get(owner, set())
        if have != want:
            yield owner, len(have ^ want)


@invariant("orgchart", "each manager's report name index lists exactly its direct reports", repair=audit.rebuild)
def report_name_indexes():
    snap, found = _state()
    for boss, wrong in _name_index_drift(snap, snap.report_names, found.reports):
        yield Violation(
            f"employee {boss}: report name index differs from the manager fields in {wrong} entries",
            [keys.report_names(boss)],
        )


@invariant("orgchart", "no chain of command is stored; folded names match the names", repair=audit.rebuild)
def edges_only():
    """The chain of command is derived by walking up, never stored (a stored chain would go stale
    with every move above it); the folded name the scripts use to update the indexes is the name's."""
    snap = audit.snapshot()
    for pk, row in snap.employees.items():
        if row["ancestors"]:
            yield Violation(f"employee {pk} stores a chain of command {row['ancestors']!r}", [keys.employee(pk)])
        if row["folded"] != fold(row["name"]):
            yield Violation(f"employee {pk}: folded name {row['folded']!r} is not its name's", [keys.employee(pk)])
    for pk, name in snap.locations.items():
        if snap.location_folded.get(pk, "") != fold(name):
            yield Violation(f"location {pk}: folded name is not its name's", [keys.location(pk)])


@invariant("orgchart", "location fields, staff sets and name copies agree", repair=audit.rebuild)
def locations_agree():
    snap, found = _state()
    for place in set(snap.staff) | set(found.staff):
        if snap.staff.get(place, set()) != found.staff.get(place, set()):
            yield Violation(
                f"location {place}: staff set {sorted(snap.staff.get(place, set()))} but location fields say "
                f"{sorted(found.staff.get(place, set()))}",
                [keys.staff(place)],
            )
    for pk, row in snap.employees.items():
        place = int(row["location"]) if row["location"] else None
        if place is not None and place not in snap.locations:
            yield Violation(f"employee {pk} works at missing location {place}", [keys.employee(pk)])
        elif (snap.locations.get(place, "") if place else "") != row["location_name"]:
            yield Violation(f"employee {pk}: location_name {row['location_name']!r} is stale", [keys.employee(pk)])


@invariant("orgchart", "name indexes list every employee and location once", repair=audit.rebuild)
def name_indexes():
    snap = audit.snapshot()
    want = {member(row["name"], pk) for pk, row in snap.employees.items()}
    if snap.names != want:
        yield Violation(f"employee name index differs in {len(snap.names ^ want)} entries", [keys.employee_names()])
    if snap.byname != {fold(row["name"]): str(pk) for pk, row in snap.employees.items()}:
        yield Violation("employee name lookup differs from the documents", [keys.employee_by_name()])
    want = {member(name, pk) for pk, name in snap.locations.items()}
    if snap.location_names != want:
        yield Violation("location name index differs from the documents", [keys.location_names()])


@invariant("orgchart", "each location's staff name index lists exactly its staff", repair=audit.rebuild)
def staff_name_indexes():
    snap, found = _state()
    for place, wrong in _name_index_drift(snap, snap.staff_names, found.staff):
        yield Violation(
            f"location {place}: staff name index differs from the location fields in {wrong} entries",
            [keys.staff_names(place)],
        )


@invariant(
    "orgchart",
    "the name trigram index holds each employee under exactly the pieces of its name",
    repair=store_names.rebuild_name_grams,
)
def name_trigrams():
    missing, extra = store_names.name_gram_drift()
    yield from gram_drift("employee", "name", missing, extra, keys.ngram)


def _aggregate(values) -> tuple[int, int, int, int]:
    values = list(values)
    return len(values), sum(values), min(values), max(values)


def _combine(rows) -> tuple[int, int, int, int]:
    rows = list(rows)
    return sum(r[0] for r in rows), sum(r[1] for r in rows), min(r[2] for r in rows), max(r[3] for r in rows)


def _as_tuple(row: dict) -> tuple[int, int, int, int] | None:
    try:
        return int(row["count"]), int(row["sum"]), int(row["min"]), int(row["max"])
    except (KeyError, ValueError):
        return None


def _rolled_up(rows: dict[str, dict], width: int) -> dict[str, tuple]:
    """What the rollups one level up should hold, from the ``rows`` kept (by stamp) one level down."""
    groups: dict[str, list] = defaultdict(list)
    for stamp, row in rows.items():
        if values := _as_tuple(row):
            groups[stamp[:width]].append(values)
    return {stamp: _combine(part) for stamp, part in groups.items()}


def _expected_rollups(index):
    """Per location, what each hourly rollup should hold: its raw samples' aggregate. Days come from
    their hours, months from their days (``_rolled_up``), only where the level below is still kept."""
    hours: dict[int, dict[str, tuple]] = defaultdict(dict)
    for place, start, samples in sensorchecks.raw_buckets(index=index):
        if samples:
            hours[place][start.strftime("%Y%m%d%H")] = _aggregate(v for _, v in samples)
    return hours


def _check_rollups(repair: bool = False):
    index = sensorchecks.sensor_index()  # one SCAN of every sensor key, not one per location and period
    hours = _expected_rollups(index)
    places = set(hours) | set(index["latest"])
    for place in sorted(places):
        stored = {p: sensorchecks.rollups_of(index[p].get(place, [])) for p in ("hour", "day", "month")}
        expected = {"hour": hours.get(place, {})}
        expected["day"] = _rolled_up(stored["hour"], len("YYYYMMDD"))
        expected["month"] = _rolled_up(stored["day"], len("YYYYMM"))
        for period in ("hour", "day", "month"):
            bad = {}
            for stamp, want in expected[period].items():
                have = _as_tuple(stored[period].get(stamp, {}))
                if have != want:
                    bad[stamp] = want
                    if not repair:
                        yield Violation(
                            f"location {place} {period} {stamp}: rollup {have} but the {period} below gives {want}",
                            [keys.temp_rollup(place, period, stamp)],
                        )
            if repair and bad:
                sensorchecks.rewrite_rollups(place, period, bad)


def _repair_rollups():
    for _ in range(3):  # hours from samples, then days from hours, then months from days
        for _ in _check_rollups(repair=True):
            pass


@invariant("orgchart", "temperature rollups equal what the raw samples give", repair=_repair_rollups)
def rollups_match_samples():
    yield from _check_rollups()


def _expire_buckets():
    sensorchecks.expire_buckets(sensorchecks.buckets_without_ttl())


@invariant("orgchart", "raw buckets and hourly and daily rollups expire (retention)", repair=_expire_buckets)
def buckets_expire():
    for key, period in sensorchecks.buckets_without_ttl():
        yield Violation(f"{key} ({period}) has no TTL: retention is not enforced", [key])


def _sensor_strays():
    """(location, what is wrong, its repair) of each sensor whose data outlives its location."""
    owners = sensorchecks.sensor_owners()
    for place in sorted(set(owners.latest) | owners.with_buckets):
        deleted = "deleted" in owners.latest.get(place, {})
        if deleted and place in owners.existing:
            yield place, "exists but its sensor is tombstoned, so it refuses every reading", False
        elif not deleted and place not in owners.existing:
            yield place, "holds sensor data but the location does not exist (a delete stopped between its steps)", True
        elif deleted and place in owners.with_buckets:
            yield place, "was deleted but its sensor still holds buckets", True


def _repair_sensor_strays():
    for place, _, forget in list(_sensor_strays()):
        if forget:
            locations.forget_sensor(place)
        else:
            sensorchecks.clear_tombstone(place)


@invariant(
    "orgchart",
    "sensor data belongs to a location that exists; a deleted one's is only its tombstone",
    repair=_repair_sensor_strays,
)
def sensor_data_has_a_location():
    for place, problem, _ in _sensor_strays():
        yield Violation(f"location {place} {problem}", [keys.temp_latest(place)])
