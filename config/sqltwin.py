"""The "In SQL" twin of each main screen: the SQL its read replaces, and what the benchmark measured.

``SCREENS`` maps each list and detail screen (its URL name) to the benchmark operations that ask
that screen's question. The statements are the app's benchmark part's own (``Part.sql_texts``), the
very strings its SQL sides send; the figures are those of the results file the benchmark writes
(``manage.py benchmark --results``), shipped with the repository, so a fresh clone shows the last
run and a new run replaces them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, lru_cache

from django.conf import settings
from django.utils.module_loading import autodiscover_modules

RESULTS = settings.BASE_DIR / "docs" / "benchmark" / "results.json"
SCALES = ("demo", "large")
SQL_SIDES = {"postgres": "the e-book's plain relational model", "dba": "a DBA's, with the same precomputation"}
TIMED_SIDES = {"redis": "Redis", "postgres": "SQL, plain model", "dba": "SQL, DBA", "orm": "Django ORM"}

SCREENS = {
    "catalog:product_list": ("1", "3"),  # the list by rating; filtered by one type, that type's own columns
    "catalog:product_detail": ("2",),
    "school:course_list": ("13",),
    "school:course_detail": ("11",),
    "school:student_list": ("14",),
    "school:student_detail": ("12",),
    "school:instructor_list": ("18",),
    "school:instructor_detail": ("5",),
    "school:algebra": ("4",),
    "cms:post_list": ("15",),
    "cms:post_detail": ("19",),
    "cms:post_history": ("6",),
    "orgchart:employee_list": ("16",),
    "orgchart:employee_detail": ("7a",),
    "orgchart:tree": ("7b",),
    "orgchart:location_list": ("17",),
    "orgchart:location_detail": ("8",),
}


@dataclass(frozen=True)
class Statements:
    side: str  # "postgres" or "dba"
    label: str
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Figure:
    side: str
    label: str
    median_ms: float
    requests: int | None  # Redis's round trips, a SQL side's statements


@dataclass(frozen=True)
class Measured:
    scale: str
    figures: tuple[Figure, ...]  # empty: not measured at this scale
    date: str = ""
    command: str = ""


@dataclass(frozen=True)
class Twin:
    key: str
    name: str
    statements: tuple[Statements, ...]
    measured: tuple[Measured, ...]


@cache
def sql_texts(dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
    """Every registered part's statements, by operation key."""
    from config.benchmark.registry import registry

    autodiscover_modules("benchmark")
    return {key: sides for part in registry.ordered() for key, sides in part.sql_texts(dialect).items()}


def results() -> dict:
    """The shipped results file: scale -> operation key -> its name, run and each side's figures."""
    path, version = results_version()
    return _parsed(path, version) if version else {}


def results_version() -> tuple[str, int]:
    """The results file's path and modification time (0 without one): what the twins vary on besides
    the screen, so their rendered section is kept until a run writes new figures."""
    try:
        return str(RESULTS), RESULTS.stat().st_mtime_ns
    except FileNotFoundError:
        return str(RESULTS), 0


@lru_cache(maxsize=1)
def _parsed(path: str, version: int) -> dict:
    """The file parsed once per version of it, not on every page."""
    with open(path) as source:
        return json.load(source)


def twins(view_name: str) -> list[Twin]:
    """The twins of one screen, one per benchmark operation asking its question."""
    if view_name not in SCREENS:
        return []
    texts, measured = sql_texts(), results()
    found = []
    for key in SCREENS[view_name]:
        runs = {scale: measured.get(scale, {}).get(key) for scale in SCALES}
        name = next((run["name"] for run in runs.values() if run), f"operation {key}")
        statements = tuple(Statements(side, label, texts[key][side]) for side, label in SQL_SIDES.items())
        found.append(Twin(key, name, statements, tuple(_measured(scale, runs[scale]) for scale in SCALES)))
    return found


def _measured(scale: str, run: dict | None) -> Measured:
    if not run:
        return Measured(scale, ())
    figures = tuple(
        Figure(side, label, run["sides"][side]["median_ms"], run["sides"][side].get("statements", run["round_trips"]))
        for side, label in TIMED_SIDES.items()
        if side in run["sides"]
    )
    return Measured(scale, figures, run["date"], run["command"])
