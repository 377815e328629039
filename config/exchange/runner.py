"""Export, check and import one app's documents: what ``export_data``, ``import_data`` and the
Import / export screens run.

An import reads its files once. The first pass checks every document (and every reference
between files) and writes nothing: a refused file leaves Redis as it was, even with
``replace``. Each document it accepts is kept, cleaned, in a private spool file (pickled in
batches, never the whole app in memory), so the second pass neither reads nor checks again: it
hands each entity's documents, in file order, as one iterator to the app's ``Entity.restore``,
which writes them through the app's own store functions (in bulk, pipelined, where the app
has such a path), rebuilding every index, count and embed as the screens do. The app must hold
no data (or ``replace`` is given, and then the current data is first exported to a temporary
folder). If the write fails or is interrupted, the app's prefix is cleared and, with
``replace``, the saved data is written back: an import either completes or leaves the app as it
found it.
"""

from __future__ import annotations

import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from django.apps import apps
from django.utils.module_loading import module_has_submodule

from config.activity import Actor
from config.exchange import files, store
from config.exchange.report import Report
from config.exchange.spec import AppExchange, Entity, Record, Seen, Writer
from config.store import Refused as Refusal

Bar = Callable[[str, int | None], Callable[[int], None]]  # (label, total) -> advance(n)


def _no_bar(label: str, total: int | None) -> Callable[[int], None]:
    return lambda n: None


STEP = 500  # records between two advances of a progress bar: a bar costs nothing per record


def _counted(docs: Iterable[dict], advance: Callable[[int], None]) -> Iterator[dict]:
    """``docs`` as they come, telling ``advance`` every ``STEP`` documents and at the end."""
    pending = 0
    for doc in docs:
        yield doc
        pending += 1
        if pending == STEP:
            advance(pending)
            pending = 0
    if pending:
        advance(pending)


SPOOL_BATCH = 1000  # cleaned documents per pickled batch in a spool file


def _spool(docs: Iterable[dict], path: Path) -> Iterator[dict]:
    """``docs`` as they come, each also kept in ``path`` (pickled in batches) for the write pass."""
    batch = []
    with path.open("wb") as handle:
        for doc in docs:
            batch.append(doc)
            if len(batch) == SPOOL_BATCH:
                handle.write(pickle.dumps(batch, pickle.HIGHEST_PROTOCOL))
                batch = []
            yield doc
        if batch:
            handle.write(pickle.dumps(batch, pickle.HIGHEST_PROTOCOL))


def _unspooled(path: Path) -> Iterator[dict]:
    """The documents ``_spool`` kept, in their order (a file this process wrote in its own folder)."""
    with path.open("rb") as handle:
        while True:
            try:
                batch = pickle.load(handle)
            except EOFError:
                return
            yield from batch


def exchanges() -> dict[str, AppExchange]:
    """Every app's format, from its ``exchange.py`` (``EXCHANGE``), in INSTALLED_APPS order."""
    found = {}
    for config in apps.get_app_configs():
        if module_has_submodule(config.module, "exchange"):
            described = getattr(import_module(f"{config.name}.exchange"), "EXCHANGE", None)
            if isinstance(described, AppExchange):
                found[described.app] = described
    return found


def holding(described: Iterable[AppExchange]) -> list[bool]:
    """Whether each app holds data: whether any of its id counters exists, in one round trip for
    every app, whatever else the server holds. Every document an app writes draws its id from
    one (an import marks them before its first document, ``_write``), and only clearing the app
    removes them, so this answers as a SCAN for any key under the app's prefix did, without
    walking every key of the server to find that an app is empty."""
    return store.any_exists([d.every_counter_key() for d in described])


def exchange_of(app: str) -> AppExchange:
    found = exchanges()
    if app not in found:
        raise KeyError(f"no exchange format for {app!r}; known: {', '.join(found)}")
    return found[app]


# --- export --------------------------------------------------------------------------------------


def export(app: str, folder: Path, bar: Bar = _no_bar) -> dict[str, int]:
    """Write ``folder/<entity>.jsonl`` for each entity and ``folder/manifest.json``; returns counts."""
    described = exchange_of(app)
    folder.mkdir(parents=True, exist_ok=True)
    # read first: a counter is never behind its ids
    counters = described.read_counters() if described.read_counters else store.counters(described.counters)
    counts = {}
    for entity in described.entities:
        advance = bar(f"{app}.{entity.name}", None)
        counts[entity.name] = files.write_lines(folder / f"{entity.name}.jsonl", _counted(entity.export(), advance))
    files.write_manifest(folder, app, counts, counters)
    return counts


# --- check ---------------------------------------------------------------------------------------


@dataclass
class Plan:
    """What an import of a folder would do: the report of its first pass, and whether the app
    holds data now (then only ``replace`` may write)."""

    app: str
    report: Report
    present: list[str] = field(default_factory=list)  # entity files found
    occupied: bool = False
    counters: dict[str, int] = field(default_factory=dict)  # from the manifest
    highest: dict[str, int] = field(default_factory=dict)  # each entity's highest id in its file

    @property
    def ok(self) -> bool:
        return self.report.ok and bool(self.present)


def _cleaned(described: AppExchange, entity: Entity, folder: Path, seen: Seen, report: Report) -> Iterator[dict]:
    """The documents of one file that pass every check, noting each refusal in ``report``."""
    path = folder / f"{entity.name}.jsonl"
    ids = seen.setdefault(entity.name, set())
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
        report.counts[entity.name] += 1
        yield clean
    if entity.verify is not None:
        for where, name, reason in entity.verify(state, seen):
            report.refuse(where, name, reason)


def check(app: str, folder: Path, bar: Bar = _no_bar, spool: Path | None = None) -> Plan:
    """The first pass: every file read and checked, nothing written to Redis. With ``spool`` (a
    private folder), each entity's accepted documents are also kept there for the write pass."""
    described = exchange_of(app)
    report = Report()
    (occupied,) = holding([described])
    plan = Plan(app, report, occupied=occupied)
    manifest = files.read_manifest(folder, app, report)
    plan.counters = manifest.get("counters", {})
    unknown = sorted(set(plan.counters) - set(described.counters))
    if unknown:
        report.refuse(files.MANIFEST, "counters", f"unknown counter(s) {', '.join(unknown)}")
    seen: Seen = {}
    for entity in described.entities:
        if not (folder / f"{entity.name}.jsonl").exists():
            continue
        plan.present.append(entity.name)
        advance = bar(f"check {app}.{entity.name}", manifest.get("counts", {}).get(entity.name))
        docs = _cleaned(described, entity, folder, seen, report)
        if spool is not None:
            docs = _spool(docs, spool / f"{entity.name}.pickle")
        for _ in _counted(docs, advance):
            pass
    plan.highest = {name: max(ids) for name, ids in seen.items() if ids and all(isinstance(i, int) for i in ids)}
    if not plan.present:
        expected = ", ".join(f"{e.name}.jsonl" for e in described.entities)
        report.refuse(str(folder.name or folder), "", f"no file of {app} found; expected one of {expected}")
    return plan


# --- import --------------------------------------------------------------------------------------


class Occupied(Refusal):
    """The app holds data and ``replace`` was not given."""


class Refused(Refusal):
    """The files did not pass the first pass; ``plan.report`` says where and why."""

    def __init__(self, plan: Plan):
        super().__init__(f"{plan.report.refused} refusal(s)")
        self.plan = plan


def _write(
    described: AppExchange,
    folder: Path,
    counters: dict[str, int],
    bar: Bar,
    spool: Path | None = None,
    totals: dict[str, int] | None = None,
    highest: dict[str, int] | None = None,
) -> None:
    """The second pass: each entity's cleaned documents, in file order, as one iterator to its
    ``restore`` (from the spool the first pass kept, or else read and checked again from
    ``folder``), then the id counters put where the export found them (never below the highest id
    written)."""
    if totals is None or any(totals.values()):
        # Before the first document: an import cut short, even by a process killed half-way, leaves
        # the app holding data (``holding``), so the next import must replace it.
        store.mark_counters(described.every_counter_key())
    writer = Writer(Actor("import"), described.counters, exported=dict(counters), highest=dict(highest or {}))
    report, seen = Report(), {}
    for entity in described.entities:
        if not (folder / f"{entity.name}.jsonl").exists():
            continue
        advance = bar(f"import {described.app}.{entity.name}", (totals or {}).get(entity.name))
        if spool is not None:
            docs = _unspooled(spool / f"{entity.name}.pickle")
        else:
            docs = _cleaned(described, entity, folder, seen, report)
        entity.restore(_counted(docs, advance), writer)
        if not report.ok:  # the file changed since it was checked
            raise RuntimeError("; ".join(report.refusal_lines()[:3]))
    if described.raise_counters:
        described.raise_counters(counters)
        return
    now = store.counters(described.counters)
    store.raise_counters({key: max(now[name], counters.get(name, 0)) for name, key in described.counters.items()})


def restore(app: str, folder: Path, replace: bool = False, bar: Bar = _no_bar) -> Plan:
    """Check, then write ``folder`` into the app. Raises ``Refused`` (nothing written) or
    ``Occupied``; on any failure while writing, the app is left as it was found."""
    described = exchange_of(app)
    with tempfile.TemporaryDirectory(prefix=f"{app}-import-") as spool:
        plan = check(app, folder, bar, spool=Path(spool))
        if not plan.ok:
            raise Refused(plan)
        if plan.occupied and not replace:
            raise Occupied(
                f"{described.label} already holds data: importing would mix two datasets. "
                "Import into an empty app, or replace its data (--replace, or the screen's replace box)."
            )
        backup = Path(tempfile.mkdtemp(prefix=f"{app}-before-import-")) if plan.occupied else None
        try:
            if backup is not None:
                export(app, backup)
                store.clear(app)
            try:
                _write(
                    described, folder, plan.counters, bar, spool=Path(spool), totals=dict(plan.report.counts),
                    highest=plan.highest,
                )  # fmt: skip
            except BaseException:
                store.clear(app)
                if backup is not None:
                    _write(described, backup, files.read_manifest(backup, app, Report()).get("counters", {}), _no_bar)
                raise
        finally:
            if backup is not None:
                shutil.rmtree(backup, ignore_errors=True)
    return plan


# --- recovery ------------------------------------------------------------------------------------


def interrupted() -> list[str]:
    """The apps whose import was cut short before it finished or rolled back (a killed process, a
    lost Redis), so their data may be neither the old nor the new. None is tracked yet."""
    return []


def recover(app: str | None = None) -> list[str]:
    """Finish or roll back the interrupted import of ``app`` (of every such app when None), so
    each holds exactly its old or its new data; returns the apps recovered. The background worker
    calls it for an import whose worker died. None is tracked yet, so there is nothing to do."""
    return []
