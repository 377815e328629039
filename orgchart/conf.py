"""The org chart's tunable limits, read from Django settings with these defaults.

They are settings (not constants) so a deployment can change them and tests
can shrink them with ``override_settings``.
"""

from django.conf import settings

DEFAULTS = {
    # Steps (a report set read, a person found) a graph script takes per call when it walks down
    # the tree (a subtree, reports at depth, staff under someone), and four times the report sets
    # one SUNION of a longer walk reads: the bound that keeps one command to a few milliseconds.
    "ORGCHART_WALK_BUDGET": 1000,
    # Manager fields one script call reads walking up a chain of command past what a page shows (the
    # whole chain, a path's two walks, each that many): a chain of any depth is read that many a call.
    "ORGCHART_CLIMB_SLICE": 250,
    # The most levels a chain of command may have, its top person the first. Every write walks the
    # chain above the people it places (for cycles and report counts), so this bounds each write's
    # script; the import, the add and move forms and the delete refuse what would go deeper.
    "ORGCHART_MAX_DEPTH": 50,
    # The most ids one command of a walk down reads from report sets: a larger report set (a
    # manager of 100,000) is read by SSCAN, that many a command, and never whole by a script.
    "ORGCHART_WIDE_SET": 5000,
    # Direct reports one script hands over to a successor: a delete of a manager of more goes in
    # slices, the org whole after each.
    "ORGCHART_HANDOVER_SLICE": 500,
    # Locations offered in a form's menu; an org with more would want a search field.
    "ORGCHART_LOCATION_CHOICES": 500,
    # People an import writes in one transaction; a larger import would hold Redis for seconds in
    # one EXEC, so it goes out in pipelined chunks, into an empty org chart only.
    "ORGCHART_IMPORT_ATOMIC_LIMIT": 5000,
    # Days each sensor bucket is kept after its last write, per period (0: forever).
    "ORGCHART_RETENTION_DAYS": {"raw": 400, "hour": 400, "day": 5 * 366, "month": 0},
}


def get(name: str):
    return getattr(settings, name, DEFAULTS[name])


def walk_budget() -> int:
    return max(1, int(get("ORGCHART_WALK_BUDGET")))


def climb_slice() -> int:
    return max(1, int(get("ORGCHART_CLIMB_SLICE")))


def max_depth() -> int:
    return max(2, int(get("ORGCHART_MAX_DEPTH")))


def wide_set() -> int:
    return max(1, int(get("ORGCHART_WIDE_SET")))


def handover_slice() -> int:
    return max(1, int(get("ORGCHART_HANDOVER_SLICE")))


def import_atomic_limit() -> int:
    return int(get("ORGCHART_IMPORT_ATOMIC_LIMIT"))


def location_choices() -> int:
    return int(get("ORGCHART_LOCATION_CHOICES"))


def retention_days() -> dict[str, int]:
    return {**DEFAULTS["ORGCHART_RETENTION_DAYS"], **get("ORGCHART_RETENTION_DAYS")}


def events_maxlen() -> int:
    """The activity stream's cap, which a script's XADD applies as the shared store does."""
    return int(settings.EVENTS_MAXLEN)
