"""The location page's temperature charts, read from the rollups the sensor write script keeps.

A chart reads what it draws, one rollup hash per bucket (24 hours, 30 days, 12 months), never a
sample. The 66 hashes are read by one script call that answers their fields as one flat array,
not 66 pipelined HMGETs: one command to pack and one reply to parse, where the pipeline cost
the client a command object and a reply each. The window's slots and key names depend only on
the hour of the newest reading, so they are built once per location and hour.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from config.redis import client
from config.store.scripts import execute
from orgchart import keys
from orgchart.store.core import Script, pipeline
from orgchart.store.sensors import HOUR, _day_stamp, _hour_stamp, _month_stamp, _utc

FIELDS = ("count", "sum", "min", "max")

_READ = Script("prelude", "rollups")


@dataclass(frozen=True)
class Rollup:
    start: datetime
    count: int
    sum: int
    min: int
    max: int

    @property
    def mean(self) -> float:
        return self.sum / self.count / 100

    @property
    def low(self) -> float:
        return self.min / 100

    @property
    def high(self) -> float:
        return self.max / 100


@dataclass
class SensorCharts:
    """What the location page's three charts draw, read from the rollups only: no sample is read."""

    latest_at: datetime | None
    latest_value: float | None
    hours: list[Rollup]  # up to 24, oldest first
    days: list[Rollup]  # up to 30, oldest first
    months: list[Rollup]  # up to 12, oldest first
    keys_read: int
    hour_slots: list[datetime] = field(default_factory=list)  # the 24 hours of the window
    day_slots: list[datetime] = field(default_factory=list)  # the 30 days of the window
    month_slots: list[datetime] = field(default_factory=list)  # the 12 months of the window


def _month_starts(last: datetime, count: int) -> list[datetime]:
    months, cur = [], last.replace(day=1, hour=0, minute=0, second=0)
    for _ in range(count):
        months.append(cur)
        cur = (cur - timedelta(days=1)).replace(day=1)
    return months[::-1]


@dataclass(frozen=True)
class _Window:
    hours: list[datetime]
    days: list[datetime]
    months: list[datetime]
    keys: list[str]  # the rollup hash of every slot, hours then days then months


@lru_cache(maxsize=256)
def _window(location: int, hour_start: int) -> _Window:
    """The slots and rollup names of the charts ending in the hour starting at ``hour_start``."""
    end = _utc(hour_start)
    hours = [end - timedelta(hours=h) for h in range(23, -1, -1)]
    days = [(end - timedelta(days=d)).replace(hour=0) for d in range(29, -1, -1)]
    months = _month_starts(end, 12)
    names = [keys.temp_rollup(location, "hour", _hour_stamp(hour)) for hour in hours]
    names += [keys.temp_rollup(location, "day", _day_stamp(day)) for day in days]
    names += [keys.temp_rollup(location, "month", _month_stamp(month)) for month in months]
    return _Window(hours, days, months, names)


def sensor_charts(location: int, latest: dict) -> SensorCharts:
    """The three charts of a location page in one round trip, ending at the newest reading: 24
    hourly, 30 daily and 12 monthly rollups, the aggregates the write script keeps, read by one
    script call. The cost never grows with the samples."""
    if not latest:
        return SensorCharts(None, None, [], [], [], 0)
    ts = int(latest["ts"])
    window = _window(location, ts - ts % HOUR)
    pipe = pipeline()
    _READ.queue(pipe, window.keys, [])
    flat = execute(pipe)[0]
    rows = [flat[i : i + 4] for i in range(0, len(flat), 4)]  # count, sum, min, max of each slot

    def present(slots, first: int) -> list[Rollup]:
        return [
            Rollup(slot, int(row[0]), int(row[1]), int(row[2]), int(row[3]))
            for slot, row in zip(slots, rows[first : first + len(slots)])
            if row[0] is not None
        ]

    return SensorCharts(
        _utc(ts),
        int(latest["value"]) / 100,
        present(window.hours, 0),
        present(window.days, len(window.hours)),
        present(window.months, len(window.hours) + len(window.days)),
        len(window.keys),
        window.hours,
        window.days,
        window.months,
    )


def monthly_rollups(location: int) -> list[Rollup]:
    """The 12 monthly rollups ending at the newest reading, oldest first (months without readings
    left out): the newest reading's time, then one script call reading those 12 hashes. Two small
    round trips, whatever the samples: what the question of a year's monthly averages needs, without
    the location page's staff and its other charts."""
    ts = client().hget(keys.temp_latest(location), "ts")
    if ts is None:
        return []
    months = _window(location, int(ts) - int(ts) % HOUR).months
    pipe = pipeline()
    _READ.queue(pipe, [keys.temp_rollup(location, "month", _month_stamp(month)) for month in months], [])
    flat = execute(pipe)[0]
    rows = [flat[i : i + 4] for i in range(0, len(flat), 4)]
    return [
        Rollup(month, int(row[0]), int(row[1]), int(row[2]), int(row[3]))
        for month, row in zip(months, rows)
        if row[0] is not None
    ]
