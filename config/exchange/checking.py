"""The first pass of an import: every file read and checked, nothing written to Redis, each accepted
document kept in the spool for the write pass; and what the import would change."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from config.exchange import files, store
from config.exchange.registry import exchange_of, holding
from config.exchange.report import Report
from config.exchange.spec import AppExchange, Entity, Record, Seen
from config.exchange.spooling import Bar, _counted, _no_bar, _spool


@dataclass
class Plan:
    """What an import of a folder would do: its first pass's report, and whether the app holds data."""

    app: str
    report: Report
    present: list[str] = field(default_factory=list)  # entity files found
    occupied: bool = False
    counters: dict[str, int] = field(default_factory=dict)  # from the manifest
    highest: dict[str, int] = field(default_factory=dict)  # each entity's highest id in its file
    ids: dict[str, set] = field(default_factory=dict, repr=False)  # each entity's ids in its file
    held: dict[str, set] | None = field(default=None, repr=False)  # the ids the app holds, when read
    signal: int | None = None  # SIGTERM or SIGINT received as the import completed: the caller stops

    @property
    def ok(self) -> bool:
        return self.report.ok and bool(self.present)


def _cleaned(
    described: AppExchange, entity: Entity, folder: Path, seen: Seen, report: Report, found: Seen
) -> Iterator[dict]:
    """The documents of one file that pass every check; their ids go to ``seen`` and ``found``."""
    path = folder / f"{entity.name}.jsonl"
    ids, own = seen.setdefault(entity.name, set()), found.setdefault(entity.name, set())
    previous, state, file_name = None, {}, path.name
    for number, doc in files.read_lines(path, report):
        where = f"{file_name}:{number}"
        record = Record(doc, entity.name, where, seen, report, state)
        clean = entity.clean(record)
        for name in record.unknown():
            record.fail(name, "unknown field")
        key = tuple(clean.get(name) for name in entity.order)
        if None not in key:
            if previous is not None and key <= previous:
                record.fail(entity.order[0], f"{', '.join(map(str, key))} comes after {', '.join(map(str, previous))}: "
                            f"the file must be in ascending {', '.join(entity.order)} order, each once")  # fmt: skip
            else:
                previous = key
        if record.errors:
            for name, reason in record.errors:
                report.refuse(where, name, reason)
            continue
        if "id" in clean:
            ids.add(clean["id"])
            own.add(clean["id"])
        report.counts[entity.name] += 1
        yield clean
    if entity.verify is not None:
        for where, name, reason in entity.verify(state, seen):
            report.refuse(where, name, reason)


def check(app: str, folder: Path, bar: Bar = _no_bar, spool: Path | None = None, merge: bool = False) -> Plan:
    """The first pass: every file read and checked, nothing written; the accepted documents kept in
    ``spool`` for the write pass. With ``merge``, a reference may name a document the app holds."""
    described = exchange_of(app)
    report = Report()
    (occupied,) = holding([described])
    plan = Plan(app, report, occupied=occupied)
    manifest = files.read_manifest(folder, app, report)
    plan.counters = manifest.get("counters", {})
    unknown = sorted(set(plan.counters) - set(described.counters))
    if unknown:
        report.refuse(files.MANIFEST, "counters", f"unknown counter(s) {', '.join(unknown)}")
    if merge and occupied:
        plan.held = {entity.name: set(store.ids(entity.key)) for entity in described.entities if entity.key}
    seen: Seen = {name: set(ids) for name, ids in (plan.held or {}).items()}
    found: Seen = {}
    for entity in described.entities:
        if not (folder / f"{entity.name}.jsonl").exists():
            continue
        plan.present.append(entity.name)
        advance = bar(f"check {app}.{entity.name}", manifest.get("counts", {}).get(entity.name))
        docs = _cleaned(described, entity, folder, seen, report, found)
        if spool is not None:
            docs = _spool(docs, spool / f"{entity.name}.pickle")
        for _ in _counted(docs, advance):
            pass
    plan.ids = {name: ids for name, ids in found.items() if all(isinstance(i, int) for i in ids)}
    plan.highest = {name: max(ids) for name, ids in plan.ids.items() if ids}
    if not plan.present:
        expected = ", ".join(f"{e.name}.jsonl" for e in described.entities)
        report.refuse(str(folder.name or folder), "", f"no file of {app} found; expected one of {expected}")
    return plan


@dataclass(frozen=True)
class Change:
    """Documents an import would add, change and delete; None for an entity without ids (a relation)."""

    entity: str
    documents: int  # in the files
    added: int | None
    changed: int | None
    deleted: int | None


def changes(plan: Plan, replace: bool = False, merge: bool = False) -> list[Change]:
    """Each entity's counts for a checked plan: the files' ids against those the app holds (a SCAN by the
    entity's key pattern). A replace deletes what the files do not hold again; a merge nothing."""
    rows = []
    for entity in exchange_of(plan.app).entities:
        documents = plan.report.counts.get(entity.name, 0)
        if entity.key is None:
            rows.append(Change(entity.name, documents, None, None, None))
            continue
        if plan.held is not None:
            held = plan.held.get(entity.name, set())
        else:
            held = set(store.ids(entity.key)) if plan.occupied else set()
        incoming = plan.ids.get(entity.name, set())
        deleted = len(held - incoming) if replace and not merge else 0
        rows.append(Change(entity.name, documents, len(incoming - held), len(incoming & held), deleted))
    return rows
