"""The org chart's export format: locations, employees (their REPORTS_TO and WORKS_AT edges as
``manager`` and ``location`` ids) and the sensors' raw samples, one file each.

Derived data is left out and rebuilt by the import: report sets, roots, report counts, the
copied location name, the name indexes, and the sensor rollups (hour, day, month: recomputed
from the samples by the ingest script, so rollups of hours whose samples already expired are
not carried over). Locations and employees go through the bulk path the seeders use, which
writes every derived structure with the documents (an import writes into an empty org chart),
with one activity event per entity.
"""

from __future__ import annotations

from datetime import UTC, datetime

from config.exchange import store as exchange
from config.exchange.spec import AppExchange, Entity, Record
from orgchart import keys, store
from orgchart.documents import Employee, Location, fold
from orgchart.forms import NAME_MAX
from orgchart.importing import depth_refusal, too_deep

HOUR_FORMAT = "%Y-%m-%dT%H:00:00Z"
INGEST_HOURS = 200  # sensor-hours per call of the write path (which sends 48 a round trip)
CHUNK = 1000  # locations per pipeline


# --- locations -----------------------------------------------------------------------------------


def _export_locations():
    for pk, row in exchange.documents(exchange.ids(keys.location), {"doc": (keys.location, "hash")}):
        location = Location.from_hash(pk, row["doc"])
        yield {"id": pk, "name": location.name, "version": location.version}


def _clean_location(record: Record) -> dict:
    name = record.text("name", NAME_MAX, required=True)
    if name:
        first = record.state.setdefault("names", {}).setdefault(fold(name), record.where)
        if first != record.where:
            record.fail("name", f"duplicate location {name!r} (first at {first})")
    return {"id": record.id(), "name": name, "version": _version(record)}


def _version(record: Record) -> int:
    """The stale-edit token kept across a round trip; a file without it starts each object at 1."""
    version = record.integer("version", 0, 2**53, required=False)
    return 1 if version is None else version


def _restore_locations(docs, writer) -> None:
    """The bulk path into an empty org chart: every location with its id and name index entries,
    a pipeline per ``CHUNK``, then the id counter at the highest id and one event."""
    count, first, last, chunk = 0, None, 0, []
    for doc in docs:
        chunk.append((doc["id"], doc["name"], doc["version"]))
        first = doc["id"] if first is None else first
        last, count = max(last, doc["id"]), count + 1
        if len(chunk) >= CHUNK:
            store.write_locations(chunk)
            chunk = []
    if chunk:
        store.write_locations(chunk)
    if count:
        writer.next_id("location", last + 1)
        store.record_import(writer.actor, "location", first, f"{count} locations")


# --- employees -----------------------------------------------------------------------------------


def _export_employees():
    for pk, row in exchange.documents(exchange.ids(keys.employee), {"doc": (keys.employee, "hash")}):
        e = Employee.from_hash(pk, row["doc"])
        yield {
            "id": pk, "name": e.name, "title": e.title, "manager": e.manager, "location": e.location,
            "full_time": e.full_time, "version": e.version,
        }  # fmt: skip


def _clean_employee(record: Record) -> dict:
    doc = {
        "id": record.id(),
        "name": record.text("name", NAME_MAX, required=True),
        "title": record.text("title", NAME_MAX),
        "manager": record.integer("manager", 1, 2**53, required=False),
        "location": record.ref("location", "locations", required=False),
        "full_time": record.boolean("full_time", default=True),
        "version": _version(record),
    }
    if doc["name"]:
        first = record.state.setdefault("names", {}).setdefault(fold(doc["name"]), record.where)
        if first != record.where:
            record.fail("name", f"duplicate employee {doc['name']!r} (first at {first})")
    if doc["id"] is not None and doc["manager"] is not None:
        record.state.setdefault("managers", {})[doc["id"]] = (doc["manager"], record.where)
    return doc


def _verify_employees(state: dict, seen) -> list[tuple[str, str, str]]:
    """Managers that exist, no cycle, and no chain of command deeper than ``conf.max_depth()``: each
    person walked up once (linear in the head count)."""
    managers = state.get("managers", {})
    known = seen.get("employees", set())
    found = [(where, "manager", f"no employee has id {boss}") for boss, where in managers.values() if boss not in known]
    walk_of: dict[int, int] = {}
    for walk, start in enumerate(managers):
        trail, cur = [], start
        while cur is not None and cur not in walk_of:
            walk_of[cur] = walk
            trail.append(cur)
            cur = managers.get(cur, (None,))[0]
        if cur is not None and walk_of[cur] == walk:
            closing = max(trail[trail.index(cur) :], key=lambda pk: int(managers[pk][1].rsplit(":", 1)[1]))
            found.append((managers[closing][1], "manager", f"reporting to #{managers[closing][0]} makes a cycle"))
    for pk in too_deep({pk: boss for pk, (boss, _) in managers.items()}):
        found.append((managers[pk][1], "manager", depth_refusal(f"#{pk}")))
    return found


def _restore_employees(docs, writer) -> None:
    """The seeders' bulk path into an empty org chart (``store.write_people``), then the id counter at
    the highest id and one event. The first pass checked that every manager exists and that no chain is a cycle."""
    rows = [(d["id"], d["name"], d["title"], d["manager"], d["location"], d["full_time"], d["version"]) for d in docs]
    if not rows:
        return
    places = store.location_names({row[4] for row in rows if row[4] is not None})
    store.write_people(rows, places)
    writer.next_id("employee", max(row[0] for row in rows) + 1)
    store.record_import(writer.actor, "employee", rows[0][0], f"{len(rows)} employees")


# --- sensor samples ------------------------------------------------------------------------------


def _export_samples():
    for location in exchange.ids(keys.location):
        first, last = store.sensor_span(location)
        if first is None:
            continue
        for key, data in exchange.strings(keys.temp_raw_span(location, first, last)):
            hour = datetime.strptime(key.rsplit(":", 1)[1], "%Y%m%d%H").replace(tzinfo=UTC)
            start = int(hour.timestamp())
            readings = [[ts - start, centi / 100] for ts, centi in store.decode_bucket(start, data)]
            if readings:
                yield {"location": location, "hour": hour.strftime(HOUR_FORMAT), "readings": readings}


def _clean_samples(record: Record) -> dict:
    location = record.ref("location", "locations")
    text = record.text("hour", required=True)
    start = None
    if text:
        try:
            start = int(datetime.strptime(text, HOUR_FORMAT).replace(tzinfo=UTC).timestamp())
        except ValueError:
            record.fail("hour", f"must be an hour like 2026-01-05T09:00:00Z, not {text!r}")
    readings = record.list("readings") or []
    clean, last = [], -1
    for item in readings:
        ok = (
            isinstance(item, list) and len(item) == 2 and isinstance(item[0], int) and not isinstance(item[0], bool)
            and isinstance(item[1], int | float) and not isinstance(item[1], bool)
        )  # fmt: skip
        if not ok or not last < item[0] < 3600 or not -327.67 <= item[1] <= 327.67:
            record.fail("readings", f"{item!r} is not [second of the hour in ascending order, degrees ±327.67]")
            break
        last = item[0]
        clean.append((start + item[0] if start is not None else 0, item[1]))
    if not readings:
        record.fail("readings", "at least one [second of the hour, degrees] reading")  # an export writes none empty
    return {"location": location, "hour": start, "readings": clean}


def _restore_samples(docs, writer) -> None:
    """Through the sensors' one write path, ``INGEST_HOURS`` sensor-hours per call (a few round
    trips of pipelined script calls): the rollups are rebuilt from the samples."""
    location, batch = None, []
    for doc in docs:
        if doc["location"] != location or len(batch) >= INGEST_HOURS:
            if batch:
                store.record_readings(location, [r for d in batch for r in d["readings"]])
            location, batch = doc["location"], []
        batch.append(doc)
    if batch:
        store.record_readings(location, [r for d in batch for r in d["readings"]])


EXCHANGE = AppExchange(
    app="orgchart",
    label="The org chart",
    entities=(
        Entity("locations", _export_locations, _clean_location, _restore_locations, key=keys.location),
        Entity(
            "employees",
            _export_employees,
            _clean_employee,
            _restore_employees,
            verify=_verify_employees,
            key=keys.employee,
        ),
        Entity("samples", _export_samples, _clean_samples, _restore_samples, order=("location", "hour")),
    ),
    counters={"employee": keys.employee_ids(), "location": keys.location_ids()},
    notes="Sensor rollups are rebuilt from the samples; rollups of hours whose samples expired are not exported.",
)
