"""Every key name of the org chart, each declared once on the function that builds it.

The graph lives in plain adjacency structures (the e-book's tree and graph
pattern; RedisGraph is end of life): each edge is kept both ways, as a field on
the employee hash and as a set on the other end, written by one script.
Temperatures use the bucket pattern: one compact string per sensor-hour, with
hourly, daily and monthly rollups.

Ids are checked by ``_id`` before they become part of a name; ``"*"`` passes
so that the registry derives each glob from its function.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache

from config.keys import register_event_stream
from config.keyspace import keyspace

APP = "orgchart"
EVENTS = register_event_stream(APP)  # the activity stream this app's writes append to
keyspace.register_app(APP, "orgchart:")
key = keyspace.declarer(APP)

TREE = "Tree and graph pattern (8 Data Modeling Patterns in Redis): adjacency sets"
BUCKET = "Bucket pattern (8 Data Modeling Patterns in Redis): time buckets with rollups"
INDEX = "Inverted index: lexical sorted set and lookup hash"
COUNTER = "Enumerable keys (the key-value design notes): id counter"
EMPLOYEE_SCREENS = ("orgchart:employee_list", "orgchart:employee_detail", "orgchart:tree", "orgchart:path")
LOCATION_SCREENS = ("orgchart:location_list", "orgchart:location_detail")


def _id(pk: int | str) -> str:
    return "*" if pk == "*" else str(int(pk))


@key("string", COUNTER, "INCR hands out employee ids.", screens=("orgchart:employee_add",))
def employee_ids() -> str:
    return "orgchart:{orgchart}:ids:employee"


@key("string", COUNTER, "INCR hands out location ids.", screens=("orgchart:location_add",))
def location_ids() -> str:
    return "orgchart:{orgchart}:ids:location"


@key(
    "hash",
    TREE,
    "One employee: name, title, full_time, and the outgoing edges manager (REPORTS_TO) and location "
    "(WORKS_AT); direct and total report counts.",
    why="The node holds its outgoing edge to its manager, so the chain of command is a walk up these "
    "fields inside one script. The counts are derived in the same script as every move, along the two "
    "chains of ancestors only, so the tree shows them without a walk down.",
    screens=EMPLOYEE_SCREENS,
    index="orgchart:{orgchart}:index:employee:names",
    url="/orgchart/employees/{id}/",
)
def employee(pk: int | str) -> str:
    return f"orgchart:{{orgchart}}:employee:{_id(pk)}"


@key(
    "set",
    TREE,
    "Ids of the employees who report directly to this one: REPORTS_TO kept the other way.",
    why="The reverse edge makes 'who reports to X' one SMEMBERS, and a subtree a walk of these sets inside "
    "one script, bounded by a budget of people per call.",
    screens=EMPLOYEE_SCREENS,
    url="/orgchart/employees/{id}/",
)
def reports(pk: int | str) -> str:
    """The direct reports of one manager: the REPORTS_TO edge seen from the manager."""
    return f"orgchart:{{orgchart}}:employee:{_id(pk)}:reports"


@key(
    "zset",
    TREE,
    "The direct reports of this employee who have reports of their own, each scored by the longest chain "
    "of command below it (1: direct reports only).",
    why="A move must know how deep the team it moves goes, to keep every chain of command within "
    "ORGCHART_MAX_DEPTH: the top score plus one is that depth, one ZREVRANGE, without a walk down. Written "
    "in the same scripts as the report set, up the chain of managers while a depth changes.",
    screens=EMPLOYEE_SCREENS,
    url="/orgchart/employees/{id}/",
)
def report_heights(pk: int | str) -> str:
    """The reports of one manager who manage others, by the depth of the team below each."""
    return f"orgchart:{{orgchart}}:employee:{_id(pk)}:reports:heights"


@key(
    "zset",
    INDEX,
    "The direct reports of this employee as `folded name\\0id`, all scores 0: the employee page's and the "
    "tree's name order.",
    why="A page of direct reports in name order is ZRANGE ... BYLEX with LIMIT, its cost the page's and not "
    "the head count's (a SORT of the report set BY name reads every member's name: 100,000 of them for a "
    "manager of 100,000). Written in the same scripts as the report set.",
    screens=EMPLOYEE_SCREENS,
    url="/orgchart/employees/{id}/",
)
def report_names(pk: int | str) -> str:
    """The direct reports of one manager in name order (lexical, all scores 0)."""
    return f"orgchart:{{orgchart}}:employee:{_id(pk)}:reports:names"


def report_names_suffix() -> str:
    """What a script appends to a report set's name for the same manager's name index."""
    return report_names("0")[len(reports("0")) :]


def report_heights_suffix() -> str:
    """What a script appends to a report set's name for the same manager's heights index."""
    return report_heights("0")[len(reports("0")) :]


def report_sets(ids: list[str]) -> list[str]:
    """The report sets of many employees at once, for a walk down that reads thousands: the ids
    come from report sets and are checked as digits, as ``_id`` would."""
    if not all(map(str.isdigit, ids)):
        raise ValueError("an employee id is a number")
    return [f"orgchart:{{orgchart}}:employee:{pk}:reports" for pk in ids]


def report_set_owners(names: list[str]) -> list[str]:
    """The ids whose report sets ``names`` are (``report_sets`` read back)."""
    head, tail = "orgchart:{orgchart}:employee:", ":reports"
    return [name[len(head) : -len(tail)] for name in names]


@key(
    "hash",
    TREE,
    "One location: its name.",
    screens=LOCATION_SCREENS,
    index="orgchart:{orgchart}:index:location:names",
    url="/orgchart/locations/{id}/",
)
def location(pk: int | str) -> str:
    return f"orgchart:{{orgchart}}:location:{_id(pk)}"


@key(
    "set",
    TREE,
    "Ids of the employees who work at this location: WORKS_AT kept the other way.",
    why="With the location field on the employee, the edge is readable from both ends; a walk of a "
    "subtree with SISMEMBER here gives 'staff here who report to X'.",
    screens=("orgchart:location_detail",),
    url="/orgchart/locations/{id}/",
)
def staff(pk: int | str) -> str:
    """The employees of one location: the WORKS_AT edge seen from the location."""
    return f"orgchart:{{orgchart}}:location:{_id(pk)}:staff"


@key(
    "zset",
    INDEX,
    "The staff of one location as `folded name\\0id`, all scores 0: the location page's name order.",
    why="A page of staff in name order is ZRANGE ... BYLEX with LIMIT, its cost the page's and not the "
    "head count's (a SORT of the staff set BY name reads every member's name). Written in the same "
    "scripts as the staff set.",
    screens=("orgchart:location_detail",),
    url="/orgchart/locations/{id}/",
)
def staff_names(pk: int | str) -> str:
    """The staff of one location in name order (lexical, all scores 0)."""
    return f"orgchart:{{orgchart}}:location:{_id(pk)}:staff:names"


def staff_names_suffix() -> str:
    """What a script appends to a staff set's name for the same location's name index."""
    return staff_names("0")[len(staff("0")) :]


@key(
    "set",
    TREE,
    "Ids of the employees with no manager: the tops of the org tree.",
    why="The tree page starts here without scanning every employee for an empty manager field.",
    screens=("orgchart:tree",),
)
def roots() -> str:
    """Employees who report to nobody: where the org tree starts."""
    return "orgchart:{orgchart}:index:employee:roots"


@key(
    "zset",
    INDEX,
    "Every employee as `folded name\\0id`, all scores 0: the list's lexical order and prefix search.",
    why="Equal scores make a sorted set order by member, so ZRANGEBYLEX pages a name-ordered list and a "
    "prefix search with LIMIT, no scan.",
    screens=("orgchart:employee_list",),
)
def employee_names() -> str:
    """Sorted set (all scores 0) of ``folded name\\0id``: lexical order for lists, prefix search."""
    return "orgchart:{orgchart}:index:employee:names"


@key(
    "hash",
    INDEX,
    "Folded name -> employee id: exact lookup and uniqueness (names identify people in the import).",
    screens=("orgchart:path", "orgchart:employee_add"),
)
def employee_by_name() -> str:
    """Hash folded name -> id: names are unique, as the import format requires."""
    return "orgchart:{orgchart}:index:employee:byname"


@key(
    "zset",
    INDEX,
    "Every location as `folded name\\0id`: the location list's order.",
    screens=("orgchart:location_list",),
)
def location_names() -> str:
    return "orgchart:{orgchart}:index:location:names"


@key("hash", INDEX, "Folded location name -> id: exact lookup and uniqueness.", screens=("orgchart:location_add",))
def location_by_name() -> str:
    return "orgchart:{orgchart}:index:location:byname"


@key(
    "set",
    "Inverted index: trigrams (n-grams) of a name",
    "The ids of the employees whose name holds one three-character piece (`ber` holds Ada Berg).",
    why="A search for any part of a name is SINTER of its pieces' sets, which Redis answers by walking the "
    "smallest, so its cost follows the rarest piece, not the size of the org; plain sets need no search "
    "module. Written in the hire, edit and delete scripts and the import, from the name the script checks "
    "is still stored.",
    screens=("orgchart:employee_list", "orgchart:employee_suggest"),
)
def ngram(gram: str) -> str:
    """One piece's set of employee ids; ``gram`` is three folded letters or digits, never raw input."""
    return f"orgchart:{{orgchart}}:ngram:{gram}"


@key(
    "set",
    "Temporary result (expires)",
    "A name search's intersection of trigram sets (a set) or its ordered copy (a sorted set); unlinked by "
    "the same transaction.",
    why="SINTERSTORE needs somewhere to put its result; a random name means no two searches share one.",
    screens=("orgchart:employee_list", "orgchart:employee_suggest"),
)
def search_temp(token: str) -> str:
    return f"orgchart:{{orgchart}}:tmp:{token}"


def employee_pattern() -> str:
    """The employee hashes as a SORT ... BY/GET pattern."""
    return employee("*")


@cache
def graph_prefixes() -> tuple[str, ...]:
    """The four name pieces a graph script needs to follow an edge it reads from a document:
    employee prefix, report-set suffix, location prefix, staff-set suffix (fixed names, built
    once: every graph script call sends them)."""
    e, loc = employee("0"), location("0")
    return (e[:-1], reports("0")[len(e) :], loc[:-1], staff("0")[len(loc) :])


# Location sensors. Period stamps are UTC: hour YYYYMMDDHH, day YYYYMMDD, month YYYYMM. Each
# location's sensor data has a hash tag of its own, so on a cluster the locations spread over the
# slots (a year of 6-second samples is gigabytes for a company); every ingest script touches one
# location's keys only. The graph (the location's hash and staff) stays in ``{orgchart}``: a
# location's delete is two steps (``store.locations.delete_location``).


def sensor_tag(location_pk: int | str) -> str:
    """The hash tag of one location's sensor data: ``sensor-<id>``."""
    return f"sensor-{_id(location_pk)}"


def _sensor(location_pk: int | str) -> str:
    return f"orgchart:{{{sensor_tag(location_pk)}}}:location:{_id(location_pk)}:temp"


_SENSOR_SCREENS = ("orgchart:location_detail",)


@key(
    "string",
    BUCKET,
    "One sensor-hour of raw readings: 4-byte records (second of the hour, temperature + 327.68 in "
    "hundredths), in time order. Expires after the raw retention.",
    why="One key per hour instead of one per sample keeps the per-sample cost to a few bytes and makes "
    "a 24-hour chart 25 GETs. The TTL, refreshed on each write, enforces retention.",
    screens=_SENSOR_SCREENS,
    url="/orgchart/locations/{id}/",
    record=4,
)
def temp_raw(location_pk: int | str, hour: str) -> str:
    return f"{_sensor(location_pk)}:raw:{hour}"


def _rollup(period: str):
    """Declare the rollup hash of one ``period`` (hour, day or month) of a location's sensor."""

    @key(
        "hash",
        BUCKET,
        f"Rollup of one {period}: count, sum, min and max in hundredths of a degree.",
        why="Updated by the same Lua script, in the same atomic step, as each raw write (our TS.CREATERULE), "
        "so a chart reads one hash per bucket, never the samples.",
        screens=_SENSOR_SCREENS,
        url="/orgchart/locations/{id}/",
    )
    def rollup(location_pk: int | str, stamp: str) -> str:
        return f"{_sensor(location_pk)}:{period}:{stamp}"

    return rollup


_ROLLUPS = {period: _rollup(period) for period in ("hour", "day", "month")}
temp_hour, temp_day, temp_month = _ROLLUPS.values()


def temp_rollup(location_pk: int | str, period: str, stamp: str) -> str:
    if period not in _ROLLUPS:
        raise ValueError(period)
    return _ROLLUPS[period](location_pk, stamp)


@key(
    "hash",
    BUCKET,
    "The newest reading of the sensor (ts, value) and the first one (first): where the charts end, "
    "and which buckets a location's delete removes. Once the location is deleted, only its tombstone "
    "(deleted: when), which refuses every later reading.",
    why="The location's hash lives in another slot than its sensor data, so the ingest script cannot "
    "look there; the tombstone, in the sensor's own slot, is what it checks.",
    screens=_SENSOR_SCREENS,
    url="/orgchart/locations/{id}/",
)
def temp_latest(location_pk: int | str) -> str:
    return f"{_sensor(location_pk)}:latest"


def sensor_pattern(location_pk: int | str = "*") -> str:
    """Every key of one location's sensor data, or of every location's (the integrity check's one SCAN)."""
    return f"{_sensor(location_pk)}:*"


def sensor_location(key: str) -> int:
    """The location whose sensor data ``key`` (one of the names above) is: read from its hash tag."""
    return int(key[key.index("{sensor-") + 8 : key.index("}")])


def sensor_kind(key: str) -> str:
    """Which of the names above ``key`` is: "raw", "hour", "day", "month" or "latest"."""
    return "latest" if key.endswith(":latest") else key.rsplit(":", 2)[-2]


def _hour_stamps(first_ts: int, last_ts: int) -> list[str]:
    """The stamp of each hour from ``first_ts``'s to ``last_ts``'s, in time order."""
    hour = datetime.fromtimestamp(first_ts, UTC).replace(minute=0, second=0, microsecond=0)
    last, stamps = datetime.fromtimestamp(last_ts, UTC), []
    while hour <= last:
        stamps.append(f"{hour:%Y%m%d%H}")
        hour += timedelta(hours=1)
    return stamps


def temp_raw_span(location_pk: int, first_ts: int, last_ts: int) -> list[str]:
    """The raw bucket of each hour from ``first_ts`` to ``last_ts`` (named, no scan), in time order."""
    return [temp_raw(location_pk, stamp) for stamp in _hour_stamps(first_ts, last_ts)]


def sensor_keys(location_pk: int, first_ts: int, last_ts: int) -> list[str]:
    """Every bucket key a sensor with readings from ``first_ts`` to ``last_ts`` can hold (named, no
    scan): each hour's raw bucket and rollup, each day's and each month's rollup."""
    stamps = _hour_stamps(first_ts, last_ts)
    found = [name for stamp in stamps for name in (temp_raw(location_pk, stamp), temp_hour(location_pk, stamp))]
    found += [temp_day(location_pk, day) for day in sorted({stamp[:8] for stamp in stamps})]
    found += [temp_month(location_pk, month) for month in sorted({stamp[:6] for stamp in stamps})]
    return found
