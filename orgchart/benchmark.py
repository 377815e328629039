"""The org chart in the benchmark: the tree-and-graph pattern and the bucket pattern.

Redis: each employee's reports are a set (the graph's edges), walked level by
level; a location's readings go into raw time buckets with hourly, daily and
monthly rollups kept at write time. SQL: ``employees.manager_id`` (an
adjacency list) walked by a recursive CTE, and raw readings grouped at read
time. At ``--scale large`` the org has 100,000 people, and a quarter of them
is moved under another manager with the longest Redis command of the move
read from SLOWLOG.
"""

from __future__ import annotations

import itertools
import random
from array import array
from collections import defaultdict

from config.activity import Actor
from config.benchmark import Extra, Load, Operation, Part, part
from config.benchmark.sql import timed_load
from config.listing import ListState
from config.seeding import SEED_EPOCH
from orgchart import benchmark_sql as sql
from orgchart import seeds, sensorfeed
from orgchart import store as org
from orgchart.documents import fold
from orgchart.importing import OrgData, Person

DAY = 86_400
BENCH = Actor("bench")
# people, locations, days of readings for the first location, seconds between readings
SIZES = {"tiny": (200, 3, 2, 60), "demo": (200, 3, 365, 60), "large": (100_000, 20, 365, 6)}


def build(rng: random.Random, people: int, locations: int) -> OrgData:
    """A tree filled level by level, 2 to 5 reports per manager, as the seeder's (about 10 levels for 100,000)."""
    data = OrgData()
    for city in seeds.CITIES[:locations]:
        data.locations[fold(city)] = city
    sites = list(data.locations)
    level, depth = [None], 0
    while len(data.people) < people:
        below = []
        for boss in level:
            for _ in range(1 if boss is None else rng.randint(2, 5)):
                if len(data.people) >= people:
                    break
                name = f"{rng.choice(seeds.FIRST)} {rng.choice(seeds.LAST)}"
                if fold(name) in data.people:
                    name = f"{name} {len(data.people)}"
                site = data.people[boss].location if boss and rng.random() < 0.7 else rng.choice(sites)
                title = seeds.TITLES[min(depth, len(seeds.TITLES) - 1)]
                data.people[fold(name)] = Person(name, title, boss, site, rng.random() < 0.9)
                below.append(fold(name))
        level, depth = below, depth + 1
    return data


@part("orgchart", order=40)
class Orgchart(Part):
    schema = sql.SCHEMA
    dba_schema = sql.DBA_SCHEMA

    def generate(self) -> None:
        people, locations, self.days, self.interval = SIZES[self.scale]
        self.org = build(random.Random(f"bench:{self.scale}:orgchart"), people, locations)
        self.now = int(SEED_EPOCH.timestamp())

    @property
    def samples(self) -> int:
        return self.days * DAY // self.interval

    def records(self) -> dict[str, int]:
        return {"employees": len(self.org.people), "samples": self.samples}

    def columns(self, location: int, days: int = 1, hundredths: bool = False):
        """The first location's readings, ``days`` per chunk, as (times, degrees), or with ``hundredths``
        (times, integer hundredths of a degree, as Redis stores them): generated once (kept as compact
        arrays, 24 bytes a reading) and handed out the same to every side."""
        self.generate_readings(location)
        times, degrees, in_hundredths = self._readings
        values = in_hundredths if hundredths else degrees
        per_chunk = days * DAY // self.interval
        for start in range(0, len(times), per_chunk):
            yield times[start : start + per_chunk], values[start : start + per_chunk]

    def readings(self, location: int, days: int = 1):
        """``columns`` as rows (time, degrees), for the tables."""
        for times, values in self.columns(location, days):
            yield list(zip(times, values))

    def generate_readings(self, location: int) -> None:
        """Generate the readings once, before any side's load is timed."""
        if getattr(self, "_readings", None) is None:
            rng = random.Random(f"bench:{self.scale}:sensor")
            base = 14 + (location * 7919 % 100) / 12
            times, values = array("q"), array("d")
            for ts, value in sensorfeed.readings(rng, base, self.now - self.days * DAY, self.now, self.interval):
                times.append(ts)
                values.append(value)
            self._readings = (times, values, array("q", org.hundredths(values)))

    def load_redis(self, run) -> list[Load]:
        imported = []
        done = run.timed(
            "orgchart",
            len(self.org.people),
            lambda: imported.append(org.import_graph(self.org, actor=BENCH, atomic=False)),  # the bulk path
        )
        done.per_record = {"employee": done.bytes / max(1, len(self.org.people))}
        self.top, self.location = imported[0].first_employee, imported[0].first_location
        self.ids = {folded: self.top + i for i, folded in enumerate(self.org.people)}
        self.places = {folded: self.location + i for i, folded in enumerate(self.org.locations)}
        written = []
        location = self.location
        self.generate_readings(location)  # the readings exist before the clock starts, as for SQL
        feed = (
            org.record_hundredths(location, times, values)
            for times, values in self.columns(location, days=7, hundredths=True)
        )
        sensor = run.timed("sensor", self.samples, lambda: written.extend(feed))
        sensor.records = sum(written)
        sensor.per_record = {"sample": sensor.bytes / max(1, sensor.records)}
        return [done, sensor]

    def load_sql(self, db) -> list[Load]:
        ids, places = self.ids, self.places

        def graph():
            db.insert("locations", ((places[f], name) for f, name in self.org.locations.items()))
            db.insert(
                "employees",
                (
                    (ids[f], p.name, p.title, ids.get(p.manager), places.get(p.location), int(p.full_time))
                    for f, p in self.org.people.items()
                ),
            )

        def readings():
            for chunk in self.readings(self.location):
                db.insert("temperature_readings", ((self.location, ts, v) for ts, v in chunk))

        return [
            timed_load(db, "orgchart", len(self.org.people), graph),
            timed_load(db, "sensor", self.samples, readings),
        ]

    def spread_writes(self):
        """An hour of readings (one a minute) at location n (every location in turn), hours counting on
        after the loaded week so every write appends: one ingest script call in that location's own slot
        (``keys.sensor_tag``), so on a cluster the writes spread as the locations do."""
        places, start, hours = sorted(self.places.values()), self.now + DAY, itertools.count()

        def write(n: int) -> int:
            hour = start + next(hours) * 3600
            return org.record_readings(places[n % len(places)], [(hour + 60 * i, 20 + i / 100) for i in range(60)])

        return [("an hour of readings at location n", write)]

    def operations(self, runs: int) -> list[Operation]:
        top, location = self.top, self.location
        return [
            Operation("7a", "reports at depth 2 of the top manager", lambda n: reports_at_depth(top, 2),
                      lambda db, n: sql.sql_levels(db, top, 2), lambda a, n: sql.orm_levels(a, top, 2),
                      dba=lambda db, n: sql.sql_levels(db, top, 2)),
            Operation("7b", "whole subtree of the top manager", lambda n: subtree(top),
                      lambda db, n: sql.sql_levels(db, top, 10**6), lambda a, n: sql.orm_levels(a, top, 10**6),
                      dba=lambda db, n: sql.sql_levels(db, top, 10**6)),
            Operation("8", "monthly average temperature over a year", lambda n: monthly(location),
                      lambda db, n: sql.sql_monthly(db, location), lambda a, n: sql.orm_monthly(a, location),
                      dba=lambda db, n: sql.dba_monthly(db, location)),
            Operation("16", "first page of the employee list, by name, with direct report counts",
                      lambda n: employee_list(), lambda db, n: sql.sql_employee_list(db),
                      lambda a, n: sql.orm_employee_list(a), dba=lambda db, n: sql.dba_employee_list(db)),
            Operation("17", "first page of the location list, by name, with head counts",
                      lambda n: location_list(), lambda db, n: sql.sql_location_list(db),
                      lambda a, n: sql.orm_location_list(a), dba=lambda db, n: sql.dba_location_list(db)),
        ]  # fmt: skip

    @classmethod
    def sql_texts(cls, dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
        return sql.texts(dialect)

    def pages(self) -> list[tuple[str, str]]:
        return [("list", "/orgchart/employees/"), ("detail", f"/orgchart/employees/{self.top}/"),
                ("sensor", f"/orgchart/locations/{self.location}/")]  # fmt: skip

    def extras(self, run) -> list[Extra]:
        return [self.move_a_quarter(run)]

    def quarter(self) -> tuple[int, int, int]:
        """(who, their subtree's size, a new manager outside it): the person heading closest to a quarter of
        the org, and the top's nearest other direct report."""
        reports = defaultdict(list)
        for folded, person in self.org.people.items():
            reports[person.manager].append(folded)
        sizes: dict[str, int] = {}
        for folded in reversed(list(self.org.people)):  # built level by level: reports come after their manager
            sizes[folded] = 1 + sum(sizes[r] for r in reports[folded])
        target = len(self.org.people) / 4
        head = min((f for f in sizes if self.org.people[f].manager), key=lambda f: (abs(sizes[f] - target), f))
        inside, stack = set(), [head]
        while stack:
            folded = stack.pop()
            inside.add(folded)
            stack += reports[folded]
        old = self.org.people[head].manager
        new = next(f for f in self.org.people if f not in inside and f != old and reports[f])
        return self.ids[head], sizes[head], self.ids[new]

    def move_a_quarter(self, run) -> Extra:
        """The move screen's write, through the store's public move function."""
        who, size, manager = self.quarter()
        outcome, seconds, longest, command = run.longest_command(lambda: org.move_employee(who, manager, actor=BENCH))
        answer = f"refused: {type(outcome).__name__}" if isinstance(outcome, Exception) else "applied"
        return Extra(
            "org-move",
            f"move {size:,} of {len(self.org.people):,} people under another manager",
            seconds * 1000,
            f"{answer}; longest command {command}",
            longest_command_ms=longest,
        )


# --- Redis -------------------------------------------------------------------------------------


def reports_at_depth(manager: int, depth: int) -> tuple:
    """7a. The ids at each level below a manager (the store gives each level in no order)."""
    return tuple(tuple(sorted(level)) for level in org.reports_by_depth(manager, depth))


def subtree(manager: int) -> tuple:
    """7b. Every level below a manager, to the bottom."""
    return tuple(tuple(sorted(level)) for level in org.subtree(manager))


def monthly(location: int) -> tuple:
    """8. A year of monthly averages from the rollups the write script keeps: the newest reading's time,
    then one script call reading the 12 monthly hashes (``monthly_rollups``)."""
    return tuple((m.start.strftime("%Y%m"), m.count, m.sum / m.count / 100) for m in org.monthly_rollups(location))


def employee_list() -> tuple:
    """16. The employee list's first page: one script reads the name index's page and each row's fields."""
    rows, total, _ = org.employee_page(ListState())
    return total, [(e.id, e.name, e.title, e.direct) for e in rows]


def location_list() -> tuple:
    """17. The location list's first page: one script reads the name index's page, names and head counts."""
    rows, total, _ = org.location_page(ListState())
    return total, [(place.id, place.name, staff) for place, staff in rows]
