"""The bulk write of a whole checked graph (the import command, the seeders, the benchmark)."""

from __future__ import annotations

from dataclasses import dataclass

from config.activity import Actor, Event
from config.redis import client
from config.store import Refused, queue_event, transact
from config.store.scripts import load
from orgchart import keys
from orgchart.documents import Employee, Location, fold
from orgchart.store.core import Script, load_scripts
from orgchart.store.names import NAMES


@dataclass(frozen=True)
class Imported:
    employees: int
    locations: int
    edges: int  # REPORTS_TO edges
    placed: int  # WORKS_AT edges
    first_employee: int
    first_location: int


_BULK = Script("prelude", "bulk")
BULK_PEOPLE = 200  # people per script call: a few milliseconds of the server each
BULK_CALLS = 10  # script calls per round trip


def import_graph(data, actor: Actor, *, atomic: bool = True, chunk: int = 2000) -> Imported:
    """Write a whole checked graph (``orgchart.importing.OrgData``): documents, both sides of every
    edge, report counts and indexes.

    ``atomic`` writes it all in one transaction with the name indexes WATCHed, so a name taken
    meanwhile fails the import instead of doubling a name. ``atomic=False`` is the bulk path into a
    store nobody else writes to (seeding, measuring): names checked first, then ``write_people``,
    so no single call holds the server for the whole org. Either way the scripts are loaded after.
    """
    people, places = list(data.people.items()), list(data.locations.items())

    def reserve(pipe) -> tuple[int, int]:
        _refuse_taken(
            people, places,
            pipe.hmget(keys.employee_by_name(), [f for f, _ in people]) if people else [],
            pipe.hmget(keys.location_by_name(), [f for f, _ in places]) if places else [],
        )  # fmt: skip
        # Ids are reserved only once the names are known to be free (a retry skips a block: harmless).
        first_e = pipe.incrby(keys.employee_ids(), len(people)) - len(people) + 1 if people else 0
        first_l = pipe.incrby(keys.location_ids(), len(places)) - len(places) + 1 if places else 0
        return first_e, first_l

    def work(pipe):
        pipe.watch(keys.employee_by_name(), keys.location_by_name())
        first_e, first_l = reserve(pipe)
        pipe.multi()
        for command in _writes(data, first_e, first_l, actor):
            command(pipe)
        return first_e, first_l

    if atomic:
        first_e, first_l = transact(work)
        load_scripts()  # the screens that read the org next pay no NOSCRIPT round trip
    else:
        first_e, first_l = _reserve_bulk(people, places)
        loc_id = {folded: first_l + i for i, (folded, _) in enumerate(places)}
        label = f"{len(people)} employees, {len(places)} locations"
        write_people(
            _documents(data, first_e, loc_id), {loc_id[f]: n for f, n in places},
            places=[(loc_id[folded], name) for folded, name in places],
            event=actor.event("imported", "orgchart", "employee", first_e, label, gone=True),
        )  # fmt: skip
    edges = sum(1 for _, p in people if p.manager is not None)
    placed = sum(1 for _, p in people if p.location is not None)
    return Imported(len(people), len(places), edges, placed, first_e, first_l)


def _refuse_taken(people, places, people_owners, place_owners) -> None:
    """Refuse the import if any of its names is already an employee's or a location's."""
    taken = [f"employee {p.name!r}" for (_, p), owner in zip(people, people_owners) if owner is not None]
    taken += [f"location {n!r}" for (_, n), owner in zip(places, place_owners) if owner is not None]
    if taken:
        raise Refused("Already in the org chart: " + ", ".join(taken[:20]) + (" …" if len(taken) > 20 else ""))


def _reserve_bulk(people, places) -> tuple[int, int]:
    """The bulk path's names check, then its ids: two round trips (each of its commands pipelined)."""
    kinds = [(items, index, counter) for items, index, counter in (
        (people, keys.employee_by_name(), keys.employee_ids()), (places, keys.location_by_name(), keys.location_ids()),
    ) if items]  # fmt: skip
    pipe = client().pipeline(transaction=False)
    for items, index, _ in kinds:
        pipe.hmget(index, [folded for folded, _ in items])
    owners = dict(zip((index for _, index, _ in kinds), pipe.execute()))
    _refuse_taken(people, places, owners.get(keys.employee_by_name(), []), owners.get(keys.location_by_name(), []))
    for items, _, counter in kinds:
        pipe.incrby(counter, len(items))
    first = {counter: last - len(items) + 1 for (items, _, counter), last in zip(kinds, pipe.execute())}
    return first.get(keys.employee_ids(), 0), first.get(keys.location_ids(), 0)


def _documents(data, first_e: int, loc_id: dict[str, int]):
    """(id, name, title, manager id, location id, full time) of each person of ``data``."""
    emp_id = {folded: first_e + i for i, folded in enumerate(data.people)}
    for folded, person in data.people.items():
        boss = emp_id[person.manager] if person.manager is not None else None
        where = loc_id[person.location] if person.location is not None else None
        yield emp_id[folded], person.name, person.title, boss, where, person.full_time


def write_locations(places) -> None:
    """Bulk write of (id, name) locations into an empty org chart, or (id, name, version) to
    keep an exported version: each hash and its name index entries, in one pipeline."""
    pipe = client().pipeline(transaction=False)
    _queue_locations(pipe, places)
    pipe.execute()


def _queue_locations(pipe, places) -> None:
    for pk, name, *version in places:
        pipe.hset(keys.location(pk), mapping=Location(pk, name, version=version[0] if version else 1).to_hash())
        _index(pipe, keys.location_names(), keys.location_by_name(), fold(name), pk)


def location_names(pks) -> dict[int, str]:
    """The names of the given locations, by id (one pipeline)."""
    pks = sorted(pks)
    if not pks:
        return {}
    pipe = client().pipeline(transaction=False)
    for pk in pks:
        pipe.hget(keys.location(pk), "name")
    return {pk: name for pk, name in zip(pks, pipe.execute()) if name is not None}


def record_import(actor: Actor, entity: str, first: int, label: str) -> None:
    """The one activity event of a bulk import of ``entity``."""
    pipe = client().pipeline(transaction=False)
    queue_event(pipe, actor.event("imported", "orgchart", entity, first, label, gone=True), keys.EVENTS)
    pipe.execute()


def write_people(people, location_names: dict[int, str], *, places=(), event: Event | None = None) -> int:
    """Bulk write of whole people into an empty org chart: ``people`` yields (id, name, title,
    manager id, location id, full time, and the version to keep an exported one), every manager
    among them. ``_BULK`` calls, ``BULK_CALLS`` a round trip, then the trigram sets. The first round
    trip loads every graph script ahead of its calls (sent with no NOSCRIPT retry) and writes
    ``places`` as ``write_locations`` does; ``event`` goes with the last. Returns how many."""
    rows = list(people)
    pipe = client().pipeline(transaction=False)
    load(*(script.source for script in Script.registry), pipe=pipe)
    _queue_locations(pipe, places)
    _queue_people(pipe, rows, location_names, event)
    return len(rows)


def _queue_people(pipe, rows: list, location_names: dict[int, str], event: Event | None) -> None:
    """The people's bulk calls and trigram sets, on ``pipe``, sent every ``BULK_CALLS`` calls."""
    managers = {row[0]: row[3] for row in rows}
    direct, total, height = tree_counts(managers)
    fields = list(Employee(0, "").to_hash())
    head = [len(fields), *fields]
    calls = 0
    for start in range(0, len(rows), BULK_PEOPLE):
        part = rows[start : start + BULK_PEOPLE]
        keys_ = [keys.employee_names(), keys.employee_by_name(), keys.roots()]
        args = [len(part), *head]
        for pk, name, title, boss, where, full_time, *version in part:
            doc = Employee(
                pk, name, title, where, boss, full_time, direct.get(pk, 0), total.get(pk, 0),
                location_name=location_names.get(where, "") if where is not None else "",
                version=version[0] if version else 1,
            )  # fmt: skip
            mapping = doc.to_hash()
            folded = mapping["folded"]
            edge = keys.reports(boss) if boss is not None else keys.roots()
            if where is not None:
                keys_ += [keys.employee(pk), edge, keys.staff(where), keys.staff_names(where)]
            else:
                keys_ += [keys.employee(pk), edge, keys.employee(pk), keys.employee(pk)]
            args += [pk, folded, "1" if where is not None else "0", *mapping.values()]
        _BULK.queue(pipe, keys_, args)
        calls += 1
        if calls >= BULK_CALLS:
            pipe.execute()
            calls = 0
    folded = {row[0]: fold(row[1]) for row in rows}
    queued = calls + queue_report_indexes(pipe, managers, height, folded)
    pieces = NAMES.members_by_set((row[0], row[1]) for row in rows)
    for gram_key, members in sorted(pieces.items()):  # one SADD per trigram set (a thousand ids at most)
        for at in range(0, len(members), 1000):
            pipe.sadd(gram_key, *members[at : at + 1000])
            queued += 1
            if queued >= 2000:
                pipe.execute()
                queued = 0
    if event is not None:
        queue_event(pipe, event, keys.EVENTS)
    if pipe.command_stack:
        pipe.execute()


def _writes(data, first_e: int, first_l: int, actor: Actor):
    """Each write of the import as a function of a pipeline, in order."""
    people, places = list(data.people.items()), list(data.locations.items())
    emp_id = {folded: first_e + i for i, (folded, _) in enumerate(people)}
    loc_id = {folded: first_l + i for i, (folded, _) in enumerate(places)}
    managers = {folded: person.manager for folded, person in people}
    direct, total, height = tree_counts(managers)
    for folded, name in places:
        pk = loc_id[folded]
        yield lambda pipe, pk=pk, name=name: pipe.hset(keys.location(pk), mapping=Location(pk, name).to_hash())
        yield lambda pipe, pk=pk, name=name, folded=folded: _index(
            pipe, keys.location_names(), keys.location_by_name(), folded, pk
        )
    for folded, person in people:
        pk = emp_id[folded]
        boss = emp_id[person.manager] if person.manager is not None else None
        where = loc_id[person.location] if person.location is not None else None
        doc = Employee(
            pk, person.name, person.title, where, boss, person.full_time, direct.get(folded, 0),
            total.get(folded, 0), location_name=data.locations[person.location] if where else "",
        )  # fmt: skip
        yield lambda pipe, pk=pk, doc=doc: pipe.hset(keys.employee(pk), mapping=doc.to_hash())
        edge = keys.reports(boss) if boss is not None else keys.roots()
        yield lambda pipe, pk=pk, edge=edge: pipe.sadd(edge, pk)
        if where is not None:
            yield lambda pipe, pk=pk, where=where, folded=folded: (
                pipe.sadd(keys.staff(where), pk),
                pipe.zadd(keys.staff_names(where), {f"{folded}\0{pk}": 0}),
            )
        yield lambda pipe, pk=pk, folded=folded: _index(
            pipe, keys.employee_names(), keys.employee_by_name(), folded, pk
        )
    yield lambda pipe: queue_report_indexes(pipe, managers, height, {f: f for f in managers}, emp_id)
    pieces = NAMES.members_by_set((emp_id[folded], person.name) for folded, person in people)
    for gram_key, members in sorted(pieces.items()):  # one SADD per trigram set (a thousand ids at most)
        for start in range(0, len(members), 1000):
            yield lambda pipe, k=gram_key, part=members[start : start + 1000]: pipe.sadd(k, *part)
    label = f"{len(people)} employees, {len(places)} locations"
    yield lambda pipe: queue_event(
        pipe, actor.event("imported", "orgchart", "employee", first_e, label, gone=True), keys.EVENTS
    )


def _index(pipe, names: str, byname: str, folded: str, pk: int) -> None:
    pipe.zadd(names, {f"{folded}\0{pk}": 0})
    pipe.hset(byname, folded, pk)


def tree_counts(managers: dict) -> tuple[dict, dict, dict]:
    """Direct and total report counts and heights (the longest chain of reports below each node, 0
    for none) of an acyclic forest given as {node: manager or None}, in linear time: each node's
    count is final once all its reports have been counted (leaves first)."""
    direct: dict = {}
    for boss in managers.values():
        if boss is not None:
            direct[boss] = direct.get(boss, 0) + 1
    total = dict.fromkeys(managers, 0)
    height = dict.fromkeys(managers, 0)
    waiting = dict(direct)  # reports not yet added to their manager's total
    ready = [node for node in managers if node not in direct]
    while ready:
        node = ready.pop()
        boss = managers[node]
        if boss is None or boss not in total:
            continue
        total[boss] += total[node] + 1
        height[boss] = max(height[boss], height[node] + 1)
        waiting[boss] -= 1
        if not waiting[boss]:
            ready.append(boss)
    return direct, total, height


def queue_report_indexes(pipe, managers: dict, height: dict, folded: dict, ids=None) -> int:
    """ZADDs of every manager's heights and report name index, a thousand members a command.
    ``folded`` gives each node's folded name, ``ids`` its id (else the node is one). Returns the
    commands queued."""
    tall: dict = {}
    named: dict = {}
    for node, boss in managers.items():
        if boss is None:
            continue
        pk, chief = (ids[node], ids[boss]) if ids else (node, boss)
        named.setdefault(chief, {})[f"{folded[node]}\0{pk}"] = 0
        if height.get(node):
            tall.setdefault(chief, {})[pk] = height[node]
    queued = 0
    for index, groups in ((keys.report_heights, tall), (keys.report_names, named)):
        for boss, members in groups.items():
            items = list(members.items())
            for at in range(0, len(items), 1000):
                pipe.zadd(index(boss), dict(items[at : at + 1000]))
                queued += 1
    return queued
