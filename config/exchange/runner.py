"""Export, check and import one app's documents: what ``export_data``, ``import_data`` and the
Import / export screens run.

An import reads its files once. The first pass checks every document (and every reference
between files) and writes nothing: a refused file leaves Redis as it was, even with
``replace``. Each document it accepts is kept, cleaned, in a spool file (pickled in batches,
never the whole app in memory), so the second pass neither reads nor checks again: it hands each
entity's documents, in file order, as one iterator to the app's ``Entity.restore``, which writes
them through the app's own store functions (in bulk, pipelined, where the app has such a path),
rebuilding every index, count and embed as the screens do. The app must hold no data, or
``replace`` is given.

Whatever stops an import, the app ends with exactly its old data or exactly the new: the import
keeps a journal on disk (``config.exchange.journal``) with the spool, a checked export of the old
data taken before the first key is touched, and the step it has reached. A failure or a signal
while writing clears the app and writes the old data back; when that fails too (Redis gone or
paused), or the process is killed, the journal stays and ``recover`` (``import_data --recover``)
does it later.
"""

from __future__ import annotations

import pickle
import shutil
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from django.apps import apps
from django.utils.module_loading import module_has_submodule

from config.activity import Actor
from config.exchange import files, journal, store
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
    ids: dict[str, set] = field(default_factory=dict, repr=False)  # each entity's ids in its file
    held: dict[str, set] | None = field(default=None, repr=False)  # the ids the app holds, when read
    signal: int | None = None  # SIGTERM or SIGINT received as the import completed: the caller stops

    @property
    def ok(self) -> bool:
        return self.report.ok and bool(self.present)


def _cleaned(
    described: AppExchange, entity: Entity, folder: Path, seen: Seen, report: Report, found: Seen
) -> Iterator[dict]:
    """The documents of one file that pass every check, noting each refusal in ``report``; their ids
    go to ``seen`` (what later references may name) and ``found`` (the files' own)."""
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
    """The first pass: every file read and checked, nothing written to Redis. With ``spool`` (a
    private folder), each entity's accepted documents are also kept there for the write pass. With
    ``merge``, a reference may also name a document the app holds (their ids read by SCAN)."""
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
    """What an import would do to one entity: documents added, changed (an id the app holds now,
    written again) and deleted. None where the entity has no ids of its own (a relation, a series):
    it is written whole, and a replace deletes every one the app holds now."""

    entity: str
    documents: int  # in the files
    added: int | None
    changed: int | None
    deleted: int | None


def changes(plan: Plan, replace: bool = False, merge: bool = False) -> list[Change]:
    """Each entity's counts for ``plan`` (a checked plan): the ids of the files, which the check
    pass collected, against the ids the app holds (a SCAN by the entity's key pattern, only when the
    app holds data). A replace deletes what the files do not hold again; a merge deletes nothing."""
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


# --- import --------------------------------------------------------------------------------------


class Occupied(Refusal):
    """The app holds data and ``replace`` was not given."""


class Refused(Refusal):
    """The files did not pass the first pass; ``plan.report`` says where and why."""

    def __init__(self, plan: Plan):
        super().__init__(f"{plan.report.refused} refusal(s)")
        self.plan = plan


class Interrupted(Refusal):
    """An earlier import of the app stopped half-way and was not recovered yet."""


class Unrestorable(Refusal):
    """The data the app holds now would not import again, so replacing it is refused: without a
    backup that restores, a failed replace could not put it back."""


class RollbackFailed(Exception):
    """Putting the old data back failed too (Redis gone or paused): the journal and its backup
    stay, for ``recover`` once Redis answers."""


def recover_hint(app: str) -> str:
    return f"python manage.py import_data --recover {app}"


def _write(
    described: AppExchange,
    spool: Path,
    counters: dict[str, int],
    bar: Bar,
    totals: dict[str, int],
    highest: dict[str, int] | None = None,
) -> None:
    """The second pass: each entity's cleaned documents, from the spool the first pass kept, in file
    order, as one iterator to its ``restore``, then the id counters put where the export found
    them (never below the highest id written)."""
    if any(totals.values()):
        # Before the first document: an import cut short, even by a process killed half-way, leaves
        # the app holding data (``holding``), so nothing but a replace or a recovery writes to it.
        store.mark_counters(described.every_counter_key())
    writer = Writer(Actor("import"), described.counters, exported=dict(counters), highest=dict(highest or {}))
    for entity in described.entities:
        kept = spool / f"{entity.name}.pickle"
        if not kept.exists():
            continue
        advance = bar(f"import {described.app}.{entity.name}", totals.get(entity.name))
        entity.restore(_counted(_unspooled(kept), advance), writer)
    if described.raise_counters:
        described.raise_counters(counters)
        return
    now = store.counters(described.counters)
    store.raise_counters({key: max(now[name], counters.get(name, 0)) for name, key in described.counters.items()})


def _written(plan: Plan) -> dict:
    """What the write pass needs of a plan besides its spool, as the journal keeps it."""
    return {"counters": plan.counters, "totals": dict(plan.report.counts), "highest": plan.highest}


def _back_up(described: AppExchange, kept: journal.Journal, bar: Bar) -> dict:
    """Export the app into the journal and check that export as an import would (into its own
    spool): the old data, proven to import again, kept before anything is cleared."""
    try:
        export(described.app, kept.backup, lambda label, total: bar(f"back up {label}", total))
    except files.TooLong as exc:
        raise Unrestorable(f"{described.label} cannot be kept as a backup ({exc}): nothing was replaced.") from None
    kept.backup_spool.mkdir(mode=0o700)
    plan = check(described.app, kept.backup, spool=kept.backup_spool)
    if not plan.ok:
        lines = "; ".join(plan.report.refusal_lines()[:3])
        raise Unrestorable(
            f"{described.label} holds data that would not import again ({lines}), so it cannot be kept "
            "as a backup: nothing was replaced."
        )
    return _written(plan)


@contextmanager
def _shielded(redeliver: bool = True) -> Iterator[list[int]]:
    """SIGINT and SIGTERM wait until the block ends (a rollback is not cut short by a second Ctrl-C),
    then reach the handler they were sent to (``redeliver``), or are only listed in what the block
    gets. Only the main thread receives signals."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {
        number: signal.signal(number, lambda signum, frame: caught.append(signum))
        for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield caught
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if redeliver and caught:
            signal.raise_signal(caught[0])


def _roll_back(described: AppExchange, kept: journal.Journal) -> None:
    """Clear the app and write the backup back (none: the app was empty), then remove the journal;
    ``RollbackFailed`` (the journal kept) when that does not complete."""
    state = kept.state()
    with _shielded():
        kept.record(journal.ROLLING_BACK)
        try:
            store.clear(described.app)
            if state.get("backup"):
                old = state["backup"]
                _write(described, kept.backup_spool, old["counters"], _no_bar, old["totals"], old["highest"])
        except BaseException as exc:
            raise RollbackFailed(
                f"{described.label}: putting the previous data back did not complete ({type(exc).__name__}: {exc}). "
                f"It is kept in {kept.backup}; once Redis answers, run `{recover_hint(described.app)}`."
            ) from exc
        kept.close()


def _pairs(path: Path, spool: Path) -> Iterator[tuple[dict, dict]]:
    """(the document as its file has it, the same document cleaned) of a file that passed the check
    with ``spool``: every line was kept, in order."""
    lines = (doc for _, doc in files.read_lines(path, Report()))
    return zip(lines, _unspooled(spool), strict=True)


def _joined(held: Iterator, incoming: Iterator, order: tuple[str, ...]) -> Iterator[dict]:
    """Two files in ascending ``order`` (of their cleaned documents) as one: an incoming document in
    place of the held one of the same key, every other of both kept."""

    def key(clean: dict) -> tuple:
        return tuple(clean[name] for name in order)

    a, b = next(held, None), next(incoming, None)
    while a is not None or b is not None:
        if b is None or (a is not None and key(a[1]) < key(b[1])):
            yield a[0]
            a = next(held, None)
            continue
        if a is not None and key(a[1]) == key(b[1]):
            a = next(held, None)
        yield b[0]
        b = next(incoming, None)


def _merge(described: AppExchange, kept: journal.Journal, folder: Path, plan: Plan, bar: Bar) -> Plan:
    """The files a merge writes: the backup (the app's data now) with the incoming documents joined in,
    each entity by its order (an id the app holds is replaced, a new one added, none deleted), checked
    whole again (a reference to a document the app holds, a name two documents now share) into a new
    spool. ``Refused`` names the lines of the joined files."""
    merged = kept.folder / "merged"
    merged.mkdir(mode=0o700)
    counts = {}
    for entity in described.entities:
        name, kept_as = f"{entity.name}.jsonl", f"{entity.name}.pickle"
        held = _pairs(kept.backup / name, kept.backup_spool / kept_as)
        incoming = _pairs(folder / name, kept.spool / kept_as) if entity.name in plan.present else iter(())
        counts[entity.name] = files.write_lines(merged / name, _joined(held, incoming, entity.order))
    held_counters = files.read_manifest(kept.backup, described.app, Report()).get("counters", {})
    counters = {n: max(held_counters.get(n, 0), plan.counters.get(n, 0)) for n in {*held_counters, *plan.counters}}
    files.write_manifest(merged, described.app, counts, counters)
    shutil.rmtree(kept.spool)
    kept.spool.mkdir(mode=0o700)
    joined = check(described.app, merged, lambda label, total: bar(f"merge: {label}", total), spool=kept.spool)
    if not joined.ok:
        raise Refused(joined)
    return joined


def restore(app: str, folder: Path, replace: bool = False, bar: Bar = _no_bar, merge: bool = False) -> Plan:
    """Check, then write ``folder`` into the app: into an empty app, in place of its data
    (``replace``), or beside it (``merge``: documents added or replaced by id, none deleted). Raises
    ``Refused`` (nothing written), ``Occupied``, ``Interrupted`` or ``journal.UnderWay``; whatever
    stops the write, the app is left as it was found (``RollbackFailed``: once ``recover`` has run)."""
    described = exchange_of(app)
    kept = journal.Journal(app)
    with kept.held():
        if kept.step() in journal.UNFINISHED:
            raise Interrupted(
                f"an earlier import of {described.label} was interrupted: run `{recover_hint(app)}` first"
            )
        kept.begin()
        try:
            plan = check(app, folder, bar, spool=kept.spool, merge=merge)
            if not plan.ok:
                raise Refused(plan)
            if plan.occupied and not (replace or merge):
                raise Occupied(
                    f"{described.label} already holds data: importing would mix two datasets. "
                    "Import into an empty app, or replace its data (--replace, or the screen's replace box), "
                    "or merge into it (--merge)."
                )
            journal.sync_tree(kept.folder)
            kept.record(journal.STAGED, new=_written(plan), backup=None)
            written = plan
            if plan.occupied:
                backup = _back_up(described, kept, bar)
                if merge:
                    written = _merge(described, kept, folder, plan, bar)
                journal.sync_tree(kept.folder)
                kept.record(journal.BACKED_UP, new=_written(written), backup=backup)
        except BaseException:
            kept.close()  # nothing was written
            raise
        try:
            kept.record(journal.WRITING)
            if plan.occupied:
                store.clear(app)
            _write(described, kept.spool, written.counters, bar, dict(written.report.counts), written.highest)
        except BaseException:
            _roll_back(described, kept)
            raise
        with _shielded(redeliver=False) as caught:  # the import is complete: a signal now stops what follows
            kept.record(journal.DONE)
            kept.close()
        plan.signal = caught[0] if caught else None
    return plan


# --- recovery ------------------------------------------------------------------------------------


def interrupted() -> list[str]:
    """The apps whose import was interrupted with neither its old nor its new data whole: a look at
    the journal's files, no Redis round trip."""
    return journal.interrupted()


def recover(app: str | None = None) -> list[str]:
    """Roll back each interrupted import (of ``app``, or of every app not importing now) to the data
    the app held before it; returns the apps rolled back. A journal that never touched Redis, or whose
    import completed, is removed. ``RollbackFailed`` if Redis still does not answer."""
    recovered = []
    for name in [app] if app else journal.apps():
        kept = journal.Journal(name)
        if app is None and kept.running():
            continue
        with kept.held():
            if kept.step() in journal.UNFINISHED:
                _roll_back(exchange_of(name), kept)
                recovered.append(name)
            elif kept.folder.exists():
                kept.close()
    return recovered
