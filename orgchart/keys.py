"""Every key name of the org chart, and its registration in the key space.

The graph lives in plain adjacency structures (RedisGraph is end of life): each
edge is kept both ways, as a field on the employee hash and as a set on the
other end, written in one transaction. Temperatures use the bucket pattern:
one compact string per sensor-hour, with hourly, daily and monthly rollups.
"""

from config.keyspace import register, register_app

APP = "orgchart"
register_app(APP, "orgchart:")

TREE = "Tree and graph (e-book): adjacency sets"
BUCKET = "Bucket (e-book): time buckets with rollups"
INDEX = "Inverted index (seed 003)"


def employee_ids() -> str:
    return "orgchart:ids:employee"


def location_ids() -> str:
    return "orgchart:ids:location"


def employee(pk: int) -> str:
    return f"orgchart:employee:{int(pk)}"


def reports(pk: int) -> str:
    """The direct reports of one manager: the REPORTS_TO edge seen from the manager."""
    return f"orgchart:employee:{int(pk)}:reports"


def location(pk: int) -> str:
    return f"orgchart:location:{int(pk)}"


def staff(pk: int) -> str:
    """The employees of one location: the WORKS_AT edge seen from the location."""
    return f"orgchart:location:{int(pk)}:staff"


def roots() -> str:
    """Employees who report to nobody: where the org tree starts."""
    return "orgchart:index:employee:roots"


def employee_names() -> str:
    """Sorted set (all scores 0) of ``folded name\\0id``: lexical order for lists, prefix search."""
    return "orgchart:index:employee:names"


def employee_by_name() -> str:
    """Hash folded name -> id: names are unique, as the import format requires."""
    return "orgchart:index:employee:byname"


def location_names() -> str:
    return "orgchart:index:location:names"


def location_by_name() -> str:
    return "orgchart:index:location:byname"


# Location sensors. Period stamps are UTC: hour YYYYMMDDHH, day YYYYMMDD, month YYYYMM.


def temp_raw(location_pk: int, hour: str) -> str:
    return f"orgchart:location:{int(location_pk)}:temp:raw:{hour}"


def temp_rollup(location_pk: int, period: str, stamp: str) -> str:
    if period not in ("hour", "day", "month"):
        raise ValueError(period)
    return f"orgchart:location:{int(location_pk)}:temp:{period}:{stamp}"


def temp_latest(location_pk: int) -> str:
    return f"orgchart:location:{int(location_pk)}:temp:latest"


def employee_pattern() -> str:
    return "orgchart:employee:*"


def temp_raw_pattern(location_pk: int) -> str:
    return f"orgchart:location:{int(location_pk)}:temp:raw:*"


def temp_rollup_pattern(location_pk: int, period: str) -> str:
    return f"orgchart:location:{int(location_pk)}:temp:{period}:*"


EMPLOYEE_SCREENS = ("orgchart:employee_list", "orgchart:employee_detail", "orgchart:tree", "orgchart:path")

register(
    APP,
    "orgchart:ids:employee",
    "string",
    "Enumerable keys (seed 003): id counter",
    "INCR hands out employee ids.",
    screens=("orgchart:employee_add",),
)
register(
    APP,
    "orgchart:ids:location",
    "string",
    "Enumerable keys (seed 003): id counter",
    "INCR hands out location ids.",
    screens=("orgchart:location_add",),
)
register(
    APP,
    "orgchart:employee:*",
    "hash",
    TREE,
    "One employee: name, title, full_time, and the outgoing edges manager (REPORTS_TO) and location "
    "(WORKS_AT); direct and total report counts.",
    why="The node holds its outgoing edges as fields, so the chain of command is one HMGET per level. "
    "The counts are derived in the same transaction as every move, so the tree shows them without a walk.",
    screens=EMPLOYEE_SCREENS,
    index="orgchart:index:employee:names",
    url="/orgchart/employees/{id}/",
)
register(
    APP,
    "orgchart:employee:*:reports",
    "set",
    TREE,
    "Ids of the employees who report directly to this one: REPORTS_TO kept the other way.",
    why="The reverse edge makes 'who reports to X' one SMEMBERS, and a whole tree level one SUNION of the "
    "level above, so a depth-N query is N round trips whatever the head count.",
    screens=EMPLOYEE_SCREENS,
    url="/orgchart/employees/{id}/",
)
register(
    APP,
    "orgchart:location:*",
    "hash",
    TREE,
    "One location: its name.",
    screens=("orgchart:location_list", "orgchart:location_detail"),
    index="orgchart:index:location:names",
    url="/orgchart/locations/{id}/",
)
register(
    APP,
    "orgchart:location:*:staff",
    "set",
    TREE,
    "Ids of the employees who work at this location: WORKS_AT kept the other way.",
    why="With the location field on the employee, the edge is readable from both ends; SINTER with a "
    "subtree gives 'staff here who report to X'.",
    screens=("orgchart:location_detail",),
    url="/orgchart/locations/{id}/",
)
register(
    APP,
    "orgchart:index:employee:names",
    "zset",
    INDEX,
    "Every employee as `folded name\\0id`, all scores 0: the list's lexical order and prefix search.",
    why="Equal scores make a sorted set order by member, so ZRANGEBYLEX pages a name-ordered list and a "
    "prefix search with LIMIT, no scan.",
    screens=("orgchart:employee_list",),
)
register(
    APP,
    "orgchart:index:employee:roots",
    "set",
    TREE,
    "Ids of the employees with no manager: the tops of the org tree.",
    why="The tree page starts here without scanning every employee for an empty manager field.",
    screens=("orgchart:tree",),
)
register(
    APP,
    "orgchart:index:employee:byname",
    "hash",
    INDEX,
    "Folded name -> employee id: exact lookup and uniqueness (names identify people in the import).",
    screens=("orgchart:path", "orgchart:employee_add"),
)
register(
    APP,
    "orgchart:index:location:names",
    "zset",
    INDEX,
    "Every location as `folded name\\0id`: the location list's order.",
    screens=("orgchart:location_list",),
)
register(
    APP,
    "orgchart:index:location:byname",
    "hash",
    INDEX,
    "Folded location name -> id: exact lookup and uniqueness.",
    screens=("orgchart:location_add",),
)
register(
    APP,
    "orgchart:location:*:temp:raw:*",
    "string",
    BUCKET,
    "One sensor-hour of raw readings: 4-byte records (second of the hour, temperature + 327.68 in "
    "hundredths), in time order. Expires after the raw retention.",
    why="One key per hour instead of one per sample keeps the per-sample cost to a few bytes and makes "
    "a 24-hour chart 25 GETs. The TTL, refreshed on each write, enforces retention.",
    screens=("orgchart:location_detail",),
    url="/orgchart/locations/{id}/",
)
for _period, _span in (("hour", "hour"), ("day", "day"), ("month", "month")):
    register(
        APP,
        f"orgchart:location:*:temp:{_period}:*",
        "hash",
        BUCKET,
        f"Rollup of one {_span}: count, sum, min and max in hundredths of a degree.",
        why="Updated by the same Lua script, in the same atomic step, as each raw write (our TS.CREATERULE), "
        "so a chart reads one hash per bucket, never the samples.",
        screens=("orgchart:location_detail",),
        url="/orgchart/locations/{id}/",
    )
register(
    APP,
    "orgchart:location:*:temp:latest",
    "hash",
    BUCKET,
    "The newest reading of the sensor (ts, value): where the charts end.",
    screens=("orgchart:location_detail",),
    url="/orgchart/locations/{id}/",
)
