"""Correctness first, then timing: each operation asked of both sides.

An operation's two answers must be equal (floats to 1e-9 relative) before
anything is timed; a mismatch stops the run with both answers. Each side is
then run until it has ``runs`` samples or has spent its time budget (at least
``min_runs``): the median and 95th percentile come from those samples. The
Redis round trips and commands are those of one run, counted by the same
trace the Redis panel shows (``config.trace.recording``), domain client only.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from config import trace


class Mismatch(AssertionError):
    """The two sides answered an operation differently."""


@dataclass(frozen=True)
class Operation:
    key: str  # "1", "7a" ...: the numbering
    name: str
    redis: Callable[[int], Any]  # called with the run number (writes use it to vary their input)
    sql: Callable[[int], Any]
    # For a write: read back what it changed, (redis answer, sql answer), after one run of each.
    check: Callable[[], tuple[Any, Any]] | None = None


@dataclass
class Timing:
    samples: list[float] = field(default_factory=list)  # seconds

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples) * 1000

    @property
    def p95_ms(self) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)] * 1000


@dataclass
class Result:
    op: Operation
    redis: Timing
    sql: Timing
    round_trips: int
    commands: int

    @property
    def ratio(self) -> float:
        """How many times faster Redis answered (SQL median / Redis median)."""
        return self.sql.median_ms / self.redis.median_ms if self.redis.median_ms else math.inf


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


def check(op: Operation) -> tuple[int, int]:
    """Ask both sides once and compare; returns the Redis side's (round trips, commands)."""
    with trace.recording() as recorded:
        from_redis = op.redis(0)
    from_sql = op.sql(0)
    if op.check is not None:
        from_redis, from_sql = op.check()
    if not same(from_redis, from_sql):
        raise Mismatch(f"operation {op.key} ({op.name}) differs:\n  Redis: {from_redis!r}\n  SQL:   {from_sql!r}")
    return recorded.round_trip_count("data"), recorded.command_count("data")


def time_side(call: Callable[[int], Any], runs: int, min_runs: int, budget: float, first: int = 1) -> Timing:
    timing = Timing()
    spent = 0.0
    for n in range(first, first + runs):
        started = time.perf_counter()
        call(n)
        took = time.perf_counter() - started
        timing.samples.append(took)
        spent += took
        if len(timing.samples) >= min_runs and spent > budget:
            break
    return timing


def run(
    operations: list[Operation], runs: int, min_runs: int, budget: float, progress=lambda text: None
) -> list[Result]:
    """Check every operation, then time every one: nothing is timed unless all agree."""
    counts = {}
    for op in operations:
        counts[op.key] = check(op)
        progress(f"checked {op.key}: {op.name}")
    results = []
    for op in operations:
        redis_timing = time_side(op.redis, runs, min_runs, budget)
        sql_timing = time_side(op.sql, runs, min_runs, budget)
        results.append(Result(op, redis_timing, sql_timing, *counts[op.key]))
        progress(f"timed {op.key}: {op.name}")
    return results
