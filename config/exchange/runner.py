"""Export, check and import one app's documents: what ``export_data``, ``import_data`` and the Import /
export screens run.

An import reads its files once. The first pass (``config.exchange.checking``) checks every document and
reference and writes nothing, keeping each document it accepts, cleaned, in a spool file; the second hands
each entity's documents, in file order, to the app's ``Entity.restore``, which writes them through the
app's own store, rebuilding every index, count and embed as the screens do.

Whatever stops an import, the app ends with exactly its old data or exactly the new: the import keeps a
journal on disk (``config.exchange.journal``) with the spool, a checked export of the old data taken
before the first key is touched, and the step reached. A failure or a signal while writing writes the old
data back; when that fails too, or the process is killed, ``recover`` (``import_data --recover``) does.
"""

from __future__ import annotations

import shutil
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from config.activity import Actor
from config.exchange import files, journal, store
from config.exchange.checking import Change, Plan, changes, check
from config.exchange.registry import exchange_of, exchanges, holding
from config.exchange.report import Report
from config.exchange.spec import AppExchange, Writer
from config.exchange.spooling import STEP, Bar, _counted, _no_bar, _unspooled
from config.store import Refused as Refusal

__all__ = [
    "STEP", "Bar", "Change", "Plan", "changes", "check", "exchange_of", "exchanges", "export", "holding",
    "interrupted", "recover", "recover_hint", "restore",
]  # fmt: skip

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
    """The app's data would not import again, so a failed replace could not put it back: refused."""


class RollbackFailed(Exception):
    """Putting the old data back failed too: the journal and its backup stay, for ``recover``."""


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
    """The second pass: each entity's cleaned documents from the spool to its ``restore``, then the id
    counters put where the export found them (never below the highest id written)."""
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
    """The app's data exported into the journal and checked as an import would, before anything is cleared."""
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
    then reach their handler (``redeliver``), or are only listed in what the block gets."""
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
    """Clear the app and write the backup back, then remove the journal; else ``RollbackFailed``."""
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
    """(the document as its file has it, cleaned) of a file that passed the check with ``spool``."""
    lines = (doc for _, doc in files.read_lines(path, Report()))
    return zip(lines, _unspooled(spool), strict=True)


def _joined(held: Iterator, incoming: Iterator, order: tuple[str, ...]) -> Iterator[dict]:
    """Two files in ascending ``order`` as one, an incoming document in place of a held one of its key."""

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
    """The backup with the incoming documents joined in (none deleted), checked whole again into a new
    spool: a merge's files (a name two documents now share is refused)."""
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
    """Check, then write ``folder`` into an empty app, in place of its data (``replace``), or beside it
    (``merge``). ``Refused``, ``Occupied``, ``Interrupted`` and ``journal.UnderWay`` write nothing;
    whatever stops the write, the app is left as it was (``RollbackFailed``: once ``recover`` has run)."""
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
    """The apps whose import was interrupted with neither its old nor its new data whole."""
    return journal.interrupted()


def recover(app: str | None = None) -> list[str]:
    """Roll back each interrupted import (of ``app``, or of every app not importing now); returns those."""
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
