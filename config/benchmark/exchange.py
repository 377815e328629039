"""``export_data`` and ``import_data`` on the benchmark's data: records per second, bytes, and the
exact round trip, app by app.

After every other measurement, each app is exported to a temporary folder
(``config.exchange.runner.export``, the command's own path), its keys are
removed, and the export is imported back into the emptied app
(``runner.restore``: the check pass, then the write pass through the app's
``Entity.restore``). Then ``check_integrity``'s invariants of that app must
hold, and a second export must give the same bytes as the first: a
difference, or a violation, fails the run.

The import is bounded by a time budget per app (``seconds``; None for no
limit), counted from the start of its check pass. When the budget runs out
the import is stopped between two batches of documents, the import's own
rollback clears the app, and the report gives the rate of what was written
and says that the round trip was not checked at that size. The export is
never cut: it is one pipelined read per 500 documents.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from config.benchmark.redisrun import commands_served, settled
from config.exchange import runner
from config.exchange import store as exchange_store
from config.invariants import violations


class OutOfTime(Exception):
    """The import's time budget ran out: raised between two batches, so the import rolls back."""


@dataclass
class Exchanged:
    app: str
    records: int = 0  # documents exported (every file's lines)
    counts: dict[str, int] = field(default_factory=dict)  # per entity
    bytes: int = 0  # the files' size, the manifest's too
    export_seconds: float = 0.0
    check_seconds: float = 0.0  # the import's first pass: every document read and checked
    checked: int = 0  # documents through the check pass (all of them unless it was stopped)
    imported: int = 0  # documents written by the import's second pass (all of them when complete)
    write_seconds: float = 0.0
    write_commands: int = 0  # commands the server ran for the write pass (INFO commandstats), when complete
    complete: bool = False  # the import wrote every document
    violations: list[str] = field(default_factory=list)  # check_integrity of the app after the import
    identical: bool | None = None  # the second export's bytes equal the first's (None: not checked)
    differing: list[str] = field(default_factory=list)  # files whose bytes differ
    note: str = ""

    @property
    def export_rate(self) -> float:
        return self.records / self.export_seconds if self.export_seconds else 0.0

    @property
    def import_seconds(self) -> float:
        return self.check_seconds + self.write_seconds

    @property
    def check_rate(self) -> float:
        return self.checked / self.check_seconds if self.checked and self.check_seconds else 0.0

    @property
    def write_rate(self) -> float:
        return self.imported / self.write_seconds if self.imported and self.write_seconds else 0.0

    @property
    def write_commands_per_second(self) -> float:
        return self.write_commands / self.write_seconds if self.write_seconds else 0.0

    @property
    def import_rate(self) -> float:
        """Documents per second of the whole import (check and write passes) as far as it went."""
        return self.imported / self.import_seconds if self.imported and self.import_seconds else 0.0

    @property
    def ok(self) -> bool:
        """A failure of the run: a violation, or a second export that differs (not: a stop at the budget)."""
        return not self.violations and self.identical is not False


class _Budget:
    """The progress callback ``runner.restore`` is given: it notes where the check pass ends and how many
    documents the write pass has handed over, and stops the import once ``seconds`` have passed."""

    def __init__(self, seconds: float | None):
        self.seconds, self.started = seconds, time.perf_counter()
        self.writing_from: float | None = None
        self.commands_before = 0
        self.stopped_at: float | None = None  # when the budget ran out (the rollback after it is not timed)
        self.checked = self.written = 0

    def __call__(self, label: str, total: int | None):
        writing = label.startswith("import ")
        if writing and self.writing_from is None:
            self.commands_before = commands_served()
            self.writing_from = time.perf_counter()

        def advance(n: int) -> None:
            if writing:
                self.written += n
            else:
                self.checked += n
            if self.seconds is not None and time.perf_counter() - self.started >= self.seconds:
                self.stopped_at = time.perf_counter()
                raise OutOfTime(f"stopped at the {self.seconds:g} s budget")

        advance(0)  # a budget already spent stops before the entity's first document
        return advance


def _files(folder: Path) -> dict[str, Path]:
    return {p.name: p for p in sorted(folder.iterdir()) if p.is_file()}


def _same_bytes(a: Path, b: Path, chunk: int = 1 << 20) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with a.open("rb") as left, b.open("rb") as right:
        while True:
            x, y = left.read(chunk), right.read(chunk)
            if x != y:
                return False
            if not x:
                return True


def round_trip(app: str, folder: Path, seconds: float | None = None) -> Exchanged:
    """Export ``app`` into ``folder``, empty it, import the export back, check, export again, compare."""
    result = Exchanged(app)
    first, second = folder / app / "first", folder / app / "second"
    settled()  # not beside a rewrite of the append-only file that an earlier app set off
    started = time.perf_counter()
    result.counts = runner.export(app, first)
    result.export_seconds = time.perf_counter() - started
    result.records = sum(result.counts.values())
    result.bytes = sum(p.stat().st_size for p in _files(first).values())
    exchange_store.clear(app)
    budget = _Budget(seconds)
    try:
        runner.restore(app, first, bar=budget)
        result.complete = True
        result.write_commands = commands_served() - budget.commands_before - 2  # the two INFO calls around it
    except OutOfTime as stop:
        result.note = (
            f"import {stop}, {budget.checked:,} of {result.records:,} documents checked, {budget.written:,} written"
        )
    finally:
        ended = budget.stopped_at or time.perf_counter()
        check_end = budget.writing_from if budget.writing_from is not None else ended
        result.check_seconds, result.write_seconds = check_end - budget.started, ended - check_end
        result.checked, result.imported = budget.checked, budget.written
    if not result.complete:
        result.note += "; the import rolled back, so the round trip was not checked at this size"
        return result
    result.violations = [f"{inv.name}: {v.message}" for inv, v in violations([app])]
    runner.export(app, second)
    before, after = _files(first), _files(second)
    result.differing = sorted(
        name for name in set(before) | set(after)
        if name not in before or name not in after or not _same_bytes(before[name], after[name])
    )  # fmt: skip
    result.identical = not result.differing
    shutil.rmtree(folder / app, ignore_errors=True)
    return result


def measure(apps: list[str], folder: Path, seconds: float | None = None, progress=lambda text: None) -> list[Exchanged]:
    """The round trip of each of ``apps`` that has an exchange format, in turn."""
    known = runner.exchanges()
    results = []
    for app in apps:
        if app not in known:
            continue
        progress(f"{app}: export, import into the emptied app, export again")
        results.append(round_trip(app, folder, seconds))
    return results
