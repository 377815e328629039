"""Temperature at each location, with the bucket pattern (the e-book's RedisTimeSeries example,
on plain strings and hashes).

Raw samples of one sensor-hour live in one string of 4-byte records: the second of the hour
(uint16) and the temperature in hundredths of a degree plus 32768 (uint16), in time order. A
year of 6-second samples is 8,760 keys of 2,400 bytes, a few bytes per sample, where a hash or a
sorted set entry per sample would cost tens. Each key expires after the raw retention.

Hourly, daily and monthly rollups (count, sum, min, max, in integer hundredths so the sums
are exact) are updated by the same Lua script as the raw write, so they can never disagree with
it: our TS.CREATERULE. A repeated timestamp keeps the last value and corrects the rollups,
recomputing a min or max it may have removed from the rollups one level down. Timestamps have
one-second resolution: two readings within the same second are the same sample.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from config.redis import client, raw_client
from config.store import NotFound
from config.store.scripts import execute, lua, queue_script, register
from orgchart import conf, keys

OFFSET = 32768  # stored = hundredths + OFFSET, so an all-zero record never looks like a reading
RECORD = struct.Struct(">HH")
GONE = -2  # the ingest script's reply for a deleted location's sensor (its tombstone): nothing written
HOUR = 3600
DAY = 86400


@dataclass(frozen=True)
class Retention:
    """How long each bucket lives after its last write, in seconds (0: forever)."""

    raw: int
    hour: int
    day: int
    month: int


def retention() -> Retention:
    """Seconds each bucket is kept after its last write (``conf.retention_days``; 0: forever)."""
    days = conf.retention_days()
    return Retention(*(int(days[period]) * DAY for period in ("raw", "hour", "day", "month")))


_INGEST = register(lua(__file__, "ingest"))


def _hour_stamp(moment: datetime) -> str:
    return moment.strftime("%Y%m%d%H")


def _day_stamp(moment: datetime) -> str:
    return moment.strftime("%Y%m%d")


def _month_stamp(moment: datetime) -> str:
    return moment.strftime("%Y%m")


def _utc(ts: int) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


def _days_of_month(moment: datetime) -> list[datetime]:
    first = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    nxt = (first + timedelta(days=32)).replace(day=1)
    return [first + timedelta(days=i) for i in range((nxt - first).days)]


class _Keys:
    """The KEYS of each sensor-hour's script call, with the names an hour shares with its day (the
    day's 24 hourly rollups) and its month (the month's daily rollups) built once per call."""

    def __init__(self, location: int):
        self.location = location
        self.days: dict[int, list[str]] = {}
        self.months: dict[str, list[str]] = {}
        self.shared: dict[int, tuple[str, str, str, str]] = {}  # per day: its stamp, its day, month, latest

    def appending(self, hour_start: int) -> list[str]:
        """The first five keys of ``self(hour_start)``, all an append needs, without the day's and
        month's lists; the three an hour shares with its day built once a day."""
        day_start = hour_start - hour_start % DAY
        shared = self.shared.get(day_start)
        if shared is None:
            day = _day_stamp(_utc(day_start))
            shared = (
                day,
                keys.temp_day(self.location, day),
                keys.temp_month(self.location, day[:6]),
                keys.temp_latest(self.location),
            )
            self.shared[day_start] = shared
        day, *rollups = shared
        hour = f"{day}{(hour_start - day_start) // HOUR:02d}"
        return [keys.temp_raw(self.location, hour), keys.temp_hour(self.location, hour), *rollups]

    def __call__(self, hour_start: int) -> list[str]:
        moment = _utc(hour_start)
        day_start = hour_start - hour_start % DAY
        hours = self.days.get(day_start)
        if hours is None:
            day0 = _utc(day_start)
            hours = [keys.temp_rollup(self.location, "hour", _hour_stamp(day0 + timedelta(hours=h))) for h in range(24)]
            self.days[day_start] = hours
        month = _month_stamp(moment)
        days = self.months.get(month)
        if days is None:
            days = [keys.temp_rollup(self.location, "day", _day_stamp(day)) for day in _days_of_month(moment)]
            self.months[month] = days
        return [
            keys.temp_raw(self.location, _hour_stamp(moment)),
            hours[moment.hour],
            keys.temp_rollup(self.location, "day", _day_stamp(moment)),
            keys.temp_rollup(self.location, "month", month),
            keys.temp_latest(self.location),
            *hours,
            *days,
        ]


_RECORDS = np.dtype([("second", ">u2"), ("value", ">u2")])  # RECORD's layout, a column at a time


def _hours(seconds: Sequence[int], hundredths: Sequence[int]) -> list[tuple[int, bytes, int, int, int, int]]:
    """The ingest arguments (start, records packed, count, sum, min, max) of each sensor-hour the
    samples touch, in time order; the last sample of a second wins. Worked a column at a time with
    numpy: a year of 6-second samples is 5 million. A reading out of range refuses them all."""
    times, values = _column(seconds), _column(hundredths)
    if not len(times):
        return []
    if not (times[1:] > times[:-1]).all():  # out of order, or a second given twice
        order = np.argsort(times, kind="stable")
        times, values = times[order], values[order]
        last = np.append(times[1:] != times[:-1], True)  # the last sample of each second
        times, values = times[last], values[last]
    low, high = int(values.min()), int(values.max())
    if low <= -OFFSET or high >= OFFSET:
        bad = low if low <= -OFFSET else high
        raise ValueError(f"temperature {bad / 100} is out of range (±327.67)")
    starts = times - times % HOUR
    firsts = np.flatnonzero(np.append(True, starts[1:] != starts[:-1]))  # where each hour begins
    ends = np.append(firsts[1:], len(times))
    records = np.empty(len(times), _RECORDS)
    records["second"] = times - starts
    records["value"] = values + OFFSET
    packed = records.tobytes()
    return [
        (start, packed[4 * first : 4 * end], end - first, total, least, most)
        for start, first, end, total, least, most in zip(
            starts[firsts].tolist(),
            firsts.tolist(),
            ends.tolist(),
            np.add.reduceat(values, firsts).tolist(),
            np.minimum.reduceat(values, firsts).tolist(),
            np.maximum.reduceat(values, firsts).tolist(),
        )
    ]


def _column(values: Sequence) -> np.ndarray:
    """A column as 64-bit integers: an array or list of integers as it is (no copy for an ``array``
    of them), anything else as ``int`` would take it (a float's fraction dropped)."""
    column = np.asarray(values)
    if column.dtype.kind == "f" and not np.isfinite(column).all():
        raise ValueError("a reading's time or temperature is not a number")
    try:
        return column.astype(np.int64, copy=False)
    except (OverflowError, TypeError) as error:
        raise ValueError(f"a reading's time or temperature is out of range: {error}") from None


BATCH_HOURS = 48  # sensor-hours a pipelined round trip: Redis runs one while the next is built


def record_readings(location: int, readings: Iterable[tuple[int, float]], batch_hours: int = BATCH_HOURS) -> int:
    """``record_samples`` of readings given as ``(unix seconds, degrees)`` pairs (a live feed, an import)."""
    readings = list(readings)
    return record_samples(location, [ts for ts, _ in readings], [value for _, value in readings], batch_hours)


def record_samples(
    location: int, seconds: Sequence[int], degrees: Sequence[float], batch_hours: int = BATCH_HOURS
) -> int:
    """Store one location's sensor samples, two columns (unix seconds, degrees): the one write path,
    for a live feed and the generator alike. One atomic script call per sensor-hour, ``batch_hours`` a
    round trip, carrying the hour's count, sum, min and max, which the script folds into the rollups
    when the samples come after those stored (the hour's five keys); otherwise it merges and
    recomputes, so a late hour is sent again with every key it may touch. Returns the new samples
    stored (a repeated timestamp replaces its sample). A reading out of range refuses the whole call
    before any write; a deleted location's sensor refuses every reading (NotFound: its tombstone)."""
    return record_hundredths(location, seconds, _hundredths(degrees), batch_hours)


def hundredths(degrees: Sequence[float]) -> list[int]:
    """Temperatures in integer hundredths of a degree, as they are stored."""
    return _hundredths(degrees).tolist()


def _hundredths(degrees: Sequence[float]) -> np.ndarray:
    """``hundredths`` as a column, rounded half to even as ``round`` does. A temperature that is not a
    number is refused; one too large to store stays too large (the range check refuses it), never
    wrapped round to a plausible one."""
    try:
        column = np.asarray(degrees, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("a temperature is not a number") from None
    if not np.isfinite(column).all():
        raise ValueError("a temperature is not a number")
    return np.rint(np.clip(column * 100, -(2.0**53), 2.0**53)).astype(np.int64)


def record_hundredths(
    location: int, seconds: Sequence[int], hundredths: Sequence[int], batch_hours: int = BATCH_HOURS
) -> int:
    """``record_samples`` of temperatures already in integer hundredths, as stored: a bulk feed that
    keeps them so (the benchmark's generator) is spared rounding them."""
    if len(seconds) != len(hundredths):
        raise ValueError(f"{len(seconds)} times for {len(hundredths)} temperatures")
    calls = _hours(seconds, hundredths)
    ttl = retention()
    names = _Keys(location)
    redis = client()

    def queue(pipe, call, keys_) -> None:
        queue_script(pipe, _INGEST, keys_, [ttl.raw, ttl.hour, ttl.day, ttl.month, *call])

    replies = []
    for at in range(0, len(calls), batch_hours):
        pipe = redis.pipeline(transaction=False)
        for call in calls[at : at + batch_hours]:
            queue(pipe, call, names.appending(call[0]))
        replies += execute(pipe, writes=True)
    late = [call for call, added in zip(calls, replies) if added == -1]
    if late:
        pipe = redis.pipeline(transaction=False)
        for call in late:
            queue(pipe, call, names(call[0]))
        replies += execute(pipe, writes=True)
    if GONE in replies:
        raise NotFound(keys.location(location))
    return sum(added for added in replies if added != -1)


def decode_bucket(start: int, data: bytes | None) -> list[tuple[int, int]]:
    """(unix seconds, hundredths) of one raw bucket."""
    if not data:
        return []
    return [(start + sec, val - OFFSET) for sec, val in RECORD.iter_unpack(data)]


def used_memory() -> int:
    """INFO used_memory less the client connections' buffers and the append-only file's: what the
    data costs, for measuring a sample, whatever a feed's batches left in its connection's buffers."""
    memory = client().info("memory")
    return int(memory["used_memory"]) - int(memory.get("mem_clients_normal", 0)) - int(memory.get("mem_aof_buffer", 0))


def sensor_span(location: int) -> tuple[int, int] | tuple[None, None]:
    """The first and last reading's time of a location's sensor, which name its buckets (None, None: none)."""
    first, last = client().hmget(keys.temp_latest(location), "first", "ts")
    return (int(first), int(last)) if first and last else (None, None)


def hour_samples(key: str, hour: datetime) -> list[tuple[int, int]]:
    return decode_bucket(int(hour.timestamp()), raw_client().get(key))
