"""Generated temperature readings, fed through ``store.record_readings``: the same write path a
live sensor feed uses. A location's climate is a yearly and a daily wave plus noise."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator

from orgchart import store

DAY = 86400
YEAR = 365.25 * DAY
CHUNK = 7 * DAY  # readings written per call: a week of buckets, one round trip


def readings(rng: random.Random, base: float, start: int, end: int, interval: int) -> Iterator[tuple[int, float]]:
    """(unix seconds, °C) every ``interval`` seconds in [start, end)."""
    for ts in range(start - start % interval, end, interval):
        season = 7 * math.sin(2 * math.pi * (ts / YEAR - 0.3))
        daily = 3 * math.sin(2 * math.pi * (ts % DAY / DAY - 0.35))
        yield ts, round(base + season + daily + rng.gauss(0, 0.3), 2)


def feed(
    location: int,
    end: int,
    days: float,
    interval: int,
    rng: random.Random,
    progress: Callable[[int], None] = lambda n: None,
) -> int:
    """Write ``days`` of readings ending at ``end`` for one location, a week per call; returns samples."""
    base = 14 + (location * 7919 % 100) / 12  # each site its own climate, 14 to 22 °C
    start, written = int(end - days * DAY), 0
    for chunk_start in range(start, int(end), CHUNK):
        chunk = list(readings(rng, base, chunk_start, min(chunk_start + CHUNK, int(end)), interval))
        written += store.record_readings(location, chunk)
        progress(len(chunk))
    return written


def history(
    location: int,
    end: int,
    days: float,
    interval: int,
    rng: random.Random,
    progress: Callable[[int], None] = lambda n: None,
    past_days: int = 366,
    past_interval: int = 6 * 3600,
) -> int:
    """A sensor with a past: ``days`` of readings every ``interval`` seconds up to ``end``, and
    before them, back to ``past_days``, a reading every ``past_interval`` seconds (an older,
    slower sensor), so the 30-day and 12-month charts have every bucket filled. Both go through
    the same write path; returns samples written."""
    recent_start = int(end - days * DAY)
    written = 0
    if past_days > days:
        written += feed(location, recent_start, past_days - days, past_interval, rng, progress)
    return written + feed(location, end, days, interval, rng, progress)
