"""The org chart's benchmark on SQL: its tables, the hand-written statements (SQLite and PostgreSQL,
and the DBA's precomputed ones on PostgreSQL) and the same reads through the Django ORM.

An employee's manager is ``employees.manager_id`` (an adjacency list) walked by a recursive CTE;
raw readings are grouped by month at read time, or kept per month by a trigger (the DBA's).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from config.benchmark.sql import counts_kept, month

PAGE = 25

SCHEMA = """
CREATE TABLE locations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE employees (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, title TEXT NOT NULL,
    manager_id INTEGER REFERENCES employees (id), location_id INTEGER REFERENCES locations (id),
    full_time INTEGER NOT NULL);
CREATE INDEX employees_manager ON employees (manager_id);
CREATE INDEX employees_location ON employees (location_id);
CREATE TABLE temperature_readings (
    location_id INTEGER NOT NULL REFERENCES locations (id), ts BIGINT NOT NULL, temperature {real} NOT NULL,
    PRIMARY KEY (location_id, ts)) {without_rowid};
"""


# The DBA's precomputation, as the Redis model keeps it (the bucket pattern's rollups): each location's
# readings counted and summed per month, filled from the rows, then kept by a trigger on every insert;
# the name order of the lists (Redis's lexical indexes) and the counts of people and places (their sizes).
# The walks need none: the adjacency list and its index, walked by one recursive CTE.
DBA_SCHEMA = """
CREATE TABLE temperature_monthly (
    location_id INTEGER NOT NULL REFERENCES locations (id), month TEXT NOT NULL, readings INTEGER NOT NULL,
    total DOUBLE PRECISION NOT NULL, PRIMARY KEY (location_id, month));
INSERT INTO temperature_monthly
SELECT location_id, to_char(to_timestamp(ts) AT TIME ZONE 'UTC', 'YYYYMM'), COUNT(*), SUM(temperature)
  FROM temperature_readings GROUP BY 1, 2;

CREATE FUNCTION temperature_monthly_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO temperature_monthly
    VALUES (NEW.location_id, to_char(to_timestamp(NEW.ts) AT TIME ZONE 'UTC', 'YYYYMM'), 1, NEW.temperature)
    ON CONFLICT (location_id, month) DO UPDATE
       SET readings = temperature_monthly.readings + 1, total = temperature_monthly.total + EXCLUDED.total;
    RETURN NEW;
END $$;
CREATE TRIGGER temperature_monthly_kept AFTER INSERT ON temperature_readings
    FOR EACH ROW EXECUTE FUNCTION temperature_monthly_kept();

CREATE INDEX employees_by_name ON employees (lower(name));
CREATE INDEX locations_by_name ON locations (lower(name));
""" + counts_kept("org_counts", "employees", "locations")


# --- hand-written SQL --------------------------------------------------------------------------

WALK = """WITH RECURSIVE below (id, depth) AS (
    SELECT id, 1 FROM employees WHERE manager_id = ?
    UNION ALL
    SELECT e.id, below.depth + 1 FROM employees e JOIN below ON e.manager_id = below.id
    WHERE below.depth < ?
)
SELECT depth, id FROM below ORDER BY depth, id"""
LAST_READING = "SELECT MAX(ts) FROM temperature_readings WHERE location_id = ?"


def monthly_sql(dialect: str) -> str:
    """12 months of raw rows grouped by month, in the dialect's spelling of a month."""
    return f"""SELECT {month(dialect, "ts")}, COUNT(*), AVG(temperature) FROM temperature_readings
WHERE location_id = ? AND ts >= ? GROUP BY 1 ORDER BY 1"""


DBA_MONTHLY = """SELECT month, readings, total / readings FROM temperature_monthly
WHERE location_id = ? AND month >= (
    SELECT to_char(to_date(MAX(month), 'YYYYMM') - INTERVAL '11 months', 'YYYYMM')
      FROM temperature_monthly WHERE location_id = ?)
ORDER BY month"""


# Names compare as Redis's name indexes hold them (folded: lower case, in the byte order of the C locale).
EMPLOYEE_LIST = (
    "SELECT COUNT(*) FROM employees",
    """SELECT e.id, e.name, e.title, (SELECT COUNT(*) FROM employees r WHERE r.manager_id = e.id)
FROM employees e ORDER BY lower(e.name) LIMIT ?""",
)
LOCATION_LIST = (
    "SELECT COUNT(*) FROM locations",
    """SELECT l.id, l.name, (SELECT COUNT(*) FROM employees e WHERE e.location_id = l.id)
FROM locations l ORDER BY lower(l.name) LIMIT ?""",
)
DBA_EMPLOYEE_LIST = """SELECT n.rows, e.id, e.name, e.title,
       (SELECT COUNT(*) FROM employees r WHERE r.manager_id = e.id)
FROM org_counts n CROSS JOIN employees e WHERE n.entity = 'employees' ORDER BY lower(e.name) LIMIT ?"""
DBA_LOCATION_LIST = """SELECT n.rows, l.id, l.name, (SELECT COUNT(*) FROM employees e WHERE e.location_id = l.id)
FROM org_counts n CROSS JOIN locations l WHERE n.entity = 'locations' ORDER BY lower(l.name) LIMIT ?"""


def sql_employee_list(db) -> tuple:
    """16. The head count, then a page by name with each one's direct reports counted."""
    return db.counted_page(EMPLOYEE_LIST, PAGE)


def sql_location_list(db) -> tuple:
    """17. The location count, then a page by name with each one's staff counted."""
    return db.counted_page(LOCATION_LIST, PAGE)


def dba_employee_list(db) -> tuple:
    """16. The page from the name index, the count from its row, each direct count from the manager index."""
    return db.page_with_total(DBA_EMPLOYEE_LIST, (PAGE,))


def dba_location_list(db) -> tuple:
    """17. The page from the name index, the count from its row, each head count from the location index."""
    return db.page_with_total(DBA_LOCATION_LIST, (PAGE,))


def _grouped(rows) -> tuple:
    levels: dict[int, list[int]] = {}
    for level, pk in rows:
        levels.setdefault(level, []).append(pk)
    return tuple(tuple(levels[d]) for d in sorted(levels))


def sql_levels(db, manager: int, depth: int) -> tuple:
    """7a and 7b. A recursive CTE bounded at ``depth``."""
    return _grouped(db.all(WALK, (manager, depth)))


def _first_month(last: int) -> int:
    first = datetime.fromtimestamp(last, UTC).replace(day=1, hour=0, minute=0, second=0)
    for _ in range(11):
        first = (first - timedelta(days=1)).replace(day=1)
    return int(first.timestamp())


def sql_monthly(db, location: int) -> tuple:
    """8. GROUP BY month over the raw rows of the 12 months ending at the newest reading."""
    (last,) = db.one(LAST_READING, (location,))
    return tuple(db.all(monthly_sql(db.dialect), (location, _first_month(last))))


def dba_monthly(db, location: int) -> tuple:
    """8. The rollup's rows of the 12 months ending at the newest one: one index range."""
    return tuple(db.all(DBA_MONTHLY, (location, location)))


# --- the Django ORM ----------------------------------------------------------------------------


def orm_levels(alias: str, manager: int, depth: int) -> tuple:
    """One query: Django has no recursive CTE, so a Django expert hands the walk to ``raw()`` (the
    documented way), which still gives model instances, each with its ``depth``."""
    from config.benchmark.models import Employee

    walked = Employee.objects.using(alias).raw(WALK.replace("?", "%s"), [manager, depth])
    return _grouped((employee.depth, employee.id) for employee in walked)


def orm_employee_list(alias: str) -> tuple:
    from django.db.models import Count
    from django.db.models.functions import Lower

    from config.benchmark.models import Employee

    people = Employee.objects.using(alias)
    rows = people.annotate(n=Count("reports")).order_by(Lower("name")).values_list("id", "name", "title", "n")
    return people.count(), list(rows[:PAGE])


def orm_location_list(alias: str) -> tuple:
    from django.db.models import Count
    from django.db.models.functions import Lower

    from config.benchmark.models import Location

    places = Location.objects.using(alias)
    rows = places.annotate(n=Count("staff")).order_by(Lower("name")).values_list("id", "name", "n")
    return places.count(), list(rows[:PAGE])


def orm_monthly(alias: str, location: int) -> tuple:
    from django.db.models import Avg, Count, Max

    from config.benchmark.models import Reading

    readings = Reading.objects.using(alias).filter(location_id=location)
    last = readings.aggregate(last=Max("ts"))["last"]
    start = datetime.fromtimestamp(_first_month(last), UTC)
    # Months of a Unix time: the boundaries computed in Python, each row counted in its month by a CASE.
    bounds = []
    month = start
    while month.timestamp() <= last:
        following = (month + timedelta(days=32)).replace(day=1)
        bounds.append((month.strftime("%Y%m"), int(month.timestamp()), int(following.timestamp())))
        month = following
    from django.db.models import Case, CharField, Value, When

    label = Case(*(When(ts__gte=lo, ts__lt=hi, then=Value(name)) for name, lo, hi in bounds), output_field=CharField())
    rows = (
        readings.filter(ts__gte=bounds[0][1]).annotate(month=label).values("month")
        .annotate(n=Count("ts"), avg=Avg("temperature")).order_by("month").values_list("month", "n", "avg")
    )  # fmt: skip
    return tuple(rows)


def texts(dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
    """The statements of each operation, per side, for the report."""
    walk = {"postgres": (WALK,), "dba": (WALK,)}  # no precomputation a walk could use: the same CTE
    return {
        "7a": walk, "7b": walk, "8": {"postgres": (LAST_READING, monthly_sql(dialect)), "dba": (DBA_MONTHLY,)},
        "16": {"postgres": EMPLOYEE_LIST, "dba": (DBA_EMPLOYEE_LIST,)},
        "17": {"postgres": LOCATION_LIST, "dba": (DBA_LOCATION_LIST,)},
    }  # fmt: skip
