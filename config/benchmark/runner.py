"""Correctness first, then timing: each operation asked of every side.

Every side's answer must equal Redis's (floats to 1e-9 relative) before
anything is timed; a mismatch stops the run with both answers. The sides are
then timed interleaved, request by request (run n asks Redis, SQLite,
PostgreSQL's two schemas and the ORM in turn, the order rotating each run), so a busy
moment of the machine falls on all of them alike. Each request's wall time
and this thread's CPU time are kept: the CPU time is the client's own work
(building commands or SQL, parsing replies, the ORM's model instances), the
rest is waiting for the server. The servers' own time comes from the servers
(Redis INFO commandstats, PostgreSQL pg_stat_statements), per request.
The Redis round trips and commands are those of one run, counted by the same
trace the Redis panel shows, domain client only.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from django.db import connections
from django.test.utils import CaptureQueriesContext

from config import trace
from config.benchmark.registry import Operation

SIDES = ("redis", "sqlite", "postgres", "dba", "orm")
LABELS = {"redis": "Redis", "sqlite": "SQLite", "postgres": "PostgreSQL SQL", "dba": "PostgreSQL DBA",
          "orm": "PostgreSQL ORM"}  # fmt: skip


class Mismatch(AssertionError):
    """Two sides answered an operation differently."""


@dataclass
class Timing:
    samples: list[float] = field(default_factory=list)  # wall seconds
    cpu: list[float] = field(default_factory=list)  # this thread's CPU seconds, per request
    server_ms: float | None = None  # the server's own time per request, where the server counts it

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples) * 1000 if self.samples else 0.0

    @property
    def p95_ms(self) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)] * 1000 if ordered else 0.0

    @property
    def cpu_ms(self) -> float:
        return statistics.median(self.cpu) * 1000 if self.cpu else 0.0


@dataclass
class Result:
    op: Operation
    timings: dict[str, Timing]
    round_trips: int
    commands: int
    sent: dict[str, list[str]] = field(default_factory=dict)  # SQL side -> the statements one run sent

    @property
    def statements(self) -> dict[str, int]:
        """SQL side -> how many statements one run sent."""
        return {side: len(texts) for side, texts in self.sent.items()}

    def ratio(self, side: str) -> float:
        """How many times faster Redis answered (the other side's median / Redis's median)."""
        redis = self.timings["redis"].median_ms
        return self.timings[side].median_ms / redis if redis and side in self.timings else math.nan


def same(a: Any, b: Any) -> bool:
    """Equal, with floats compared to 1e-9 relative, and tuples and lists alike."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
        )
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(same(a[k], b[k]) for k in a)
    return a == b


@dataclass
class Sides:
    """How to reach each side: the SQL ``Db`` per side and the ORM's database alias; absent sides are None."""

    sqlite: Any = None
    postgres: Any = None
    dba: Any = None  # the DBA's schema on PostgreSQL
    orm: str | None = None
    server_time: dict[str, Callable[[], float]] = field(default_factory=dict)  # side -> server ms so far
    reset: dict[str, Callable[[], None]] = field(default_factory=dict)
    redis_server_time: Callable[[frozenset[str]], float] | None = None  # Redis's, over the commands named

    def sending(self, names: frozenset[str]) -> Sides:
        """These sides, with the Redis server's time counted over the commands an operation sends: a
        script's own calls are in its EVALSHA's time, and INFO commandstats counts them again under
        their names. EXEC is left out for the same reason: its time is its queued commands'. EVAL and
        EVALSHA go together: a short script queued on pipelines is sent whole, the others by digest."""
        if self.redis_server_time is None:
            return self
        count, names = self.redis_server_time, names - {"exec"}
        if names & {"eval", "evalsha"}:  # a script sent whole or by its digest
            names |= {"eval", "evalsha"}
        return replace(self, server_time={**self.server_time, "redis": lambda: count(names)})

    def calls(self, op: Operation) -> dict[str, Callable[[int], Any]]:
        """One callable per present side, each taking the run number."""
        calls = {"redis": op.redis}
        if self.sqlite is not None:
            calls["sqlite"] = lambda n, db=self.sqlite: op.sql(db, n)
        if self.postgres is not None:
            calls["postgres"] = lambda n, db=self.postgres: op.sql(db, n)
        if self.dba is not None and op.dba is not None:
            calls["dba"] = lambda n, db=self.dba: op.dba(db, n)
        if self.orm is not None and op.orm is not None:
            calls["orm"] = lambda n, alias=self.orm: op.orm(alias, n)
        return calls


def _statements(sides: Sides, side: str, call: Callable[[], Any]) -> tuple[Any, list[str] | None]:
    """``call()``'s answer and the text of each SQL statement it sent (None for Redis)."""
    if side == "redis":
        return call(), None
    if side == "orm":
        with CaptureQueriesContext(connections[sides.orm]) as queries:
            answer = call()
        return answer, [query["sql"] for query in queries]
    db = getattr(sides, side)
    if not hasattr(db, "sent"):
        return call(), None
    db.sent = []
    try:
        answer = call()
        return answer, db.sent
    finally:
        db.sent = None


def check(op: Operation, sides: Sides) -> tuple[int, int, frozenset[str], dict[str, list[str]]]:
    """Ask every side once and compare each with Redis; returns Redis's round trips, commands and the
    names of the commands it sent, and the text of each statement each SQL side sent."""
    calls = sides.calls(op)
    with trace.recording() as recorded:
        answers = {"redis": calls["redis"](0)}
    sent = {}
    for side, call in calls.items():
        if side != "redis":
            answers[side], sent[side] = _statements(sides, side, lambda call=call: call(0))
    if op.check is not None:
        answers = {side: call(0) for side, call in sides.calls(op.check).items()}
    for side, answer in answers.items():
        if not same(answers["redis"], answer):
            raise Mismatch(
                f"operation {op.key} ({op.name}) differs:\n  Redis: {answers['redis']!r}\n  {LABELS[side]}: {answer!r}"
            )
    names = frozenset(c.name.lower() for t in recorded.trips("data") for c in t.commands)
    return (
        recorded.round_trip_count("data"),
        recorded.command_count("data"),
        names,
        {side: texts for side, texts in sent.items() if texts is not None},
    )


def interleaved(
    calls: dict[str, Callable[[int], Any]], runs: int, min_runs: int, budget: float, sides: Sides | None = None
) -> dict[str, Timing]:
    """Time every side, request by request, the order rotating; stop at ``runs`` or once every side has
    ``min_runs`` and the whole has spent ``budget`` seconds per side."""
    names = list(calls)
    timings = {name: Timing() for name in names}
    sides = sides or Sides()
    servers = {name: fn for name, fn in sides.server_time.items() if name in calls}
    for reset in {id(fn): fn for name, fn in sides.reset.items() if name in servers}.values():  # each once
        reset()
    before = {name: fn() for name, fn in servers.items()}
    spent = 0.0
    for n in range(1, runs + 1):
        shift = n % len(names)
        for name in names[shift:] + names[:shift]:
            cpu, started = time.thread_time(), time.perf_counter()
            calls[name](n)
            took = time.perf_counter() - started
            timings[name].samples.append(took)
            timings[name].cpu.append(time.thread_time() - cpu)
            spent += took
        if n >= min_runs and spent > budget * len(names):
            break
    for name, fn in servers.items():
        timings[name].server_ms = (fn() - before[name]) / len(timings[name].samples)
    return timings


def run(
    operations: list[Operation], sides: Sides, runs: int, min_runs: int, budget: float, progress=lambda text: None
) -> list[Result]:
    """Check every operation, then time every one: nothing is timed unless all agree."""
    counts = {}
    for op in operations:
        counts[op.key] = check(op, sides)
        progress(f"checked {op.key}: {op.name}")
    results = []
    for op in operations:
        round_trips, commands, names, sent = counts[op.key]
        timings = interleaved(sides.calls(op), runs, min_runs, budget, sides.sending(names))
        results.append(Result(op, timings, round_trips, commands, sent))
        progress(f"timed {op.key}: {op.name}")
    return results


def floors(calls: dict[str, Callable[[], Any]], runs: int) -> dict[str, Timing]:
    """Each side's cheapest request (Redis PING, SQL SELECT 1), timed the same interleaved way."""
    return interleaved({name: (lambda n, fn=fn: fn()) for name, fn in calls.items()}, runs, runs, 0.0)
