"""One benchmark run: a scratch Redis and a scratch SQLite, one data set in both, every
operation checked then timed, and the pages.

Nothing touches the development data: the Redis is a server of its own in a
temporary directory (the clients and the session cache are pointed at it for
the run and back afterwards), the SQLite file sits beside it, and the signed-in
user for the page timings lives in a throwaway in-memory database (the test
runner's own database, under tests).
"""

from __future__ import annotations

import copy
import os
import platform
import sqlite3
import tempfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import django.test.signals  # noqa: F401  (its receivers rebuild the cache handlers when CACHES changes)
from django.conf import settings
from django.db import connection
from django.test.utils import override_settings

from config.benchmark import pages
from config.benchmark import redisside as R  # the two sides, named short so each operation reads on one line
from config.benchmark import sqlside as S
from config.benchmark.dataset import SCALES, Dataset, generate
from config.benchmark.runner import Operation, Result, run
from config.redis import EmbeddedRedis, client, is_dev_server, reset_clients

TYPE = "phone"


@dataclass(frozen=True)
class Budget:
    runs: int  # at most, per side and operation
    min_runs: int
    seconds: float  # per side and operation, once min_runs are done
    page_runs: int


BUDGETS = {
    "tiny": Budget(runs=3, min_runs=2, seconds=0.05, page_runs=2),
    "demo": Budget(runs=200, min_runs=10, seconds=2.0, page_runs=20),
    "large": Budget(runs=200, min_runs=5, seconds=3.0, page_runs=20),
}


@dataclass
class Outcome:
    meta: dict
    results: list[Result] = field(default_factory=list)
    redis_loads: list[R.Load] = field(default_factory=list)
    sql_loads: list[R.Load] = field(default_factory=list)
    pages: list[pages.PageResult] = field(default_factory=list)


@contextmanager
def scratch_redis(directory: Path):
    """A redis-server of our own, with every client (domain, raw, sessions) pointed at it."""
    server = EmbeddedRedis(directory / "redis")
    server.ensure_running()
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["LOCATION"] = server.url
    hosts = [*settings.ALLOWED_HOSTS, "testserver"]
    try:
        with override_settings(REDIS_URL=server.url, CACHES=caches, ALLOWED_HOSTS=hosts, SECURE_SSL_REDIRECT=False):
            reset_clients()
            if is_dev_server():
                raise RuntimeError("the benchmark must not run against the development Redis")
            yield server
    finally:
        reset_clients()
        server.stop()


def other_database(server: EmbeddedRedis):
    """Database 1 of the scratch server, for a memory probe; flushed when done."""

    @contextmanager
    def switch():
        with override_settings(REDIS_URL=f"{server.url}?db=1"):
            try:
                yield
            finally:
                client().flushdb()

    return switch


@contextmanager
def scratch_database():
    """An in-memory database for the signed-in user, unless one is already (the test runner's)."""
    if getattr(settings, "TESTING", False):
        yield
        return
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def _detail_product(data: Dataset) -> int:
    """A product in the middle with at least 3 reviews, so the embed is full."""
    middle = data.products[len(data.products) // 2 :] + data.products
    return next(p.id for p, reviews in middle if len(reviews) >= 3)


def _busiest(pairs: list[tuple[int, int]], side: int) -> list[int]:
    """Ids of one side of a relation, the most related first (ties by id)."""
    counts = Counter(pair[side] for pair in pairs)
    return sorted(counts, key=lambda pk: (-counts[pk], pk))


def enrolment_pairs(school: R.SchoolData, limit: int, count: int) -> list[tuple[int, int]]:
    """``count`` (course, student) pairs that can each be enrolled in turn, within capacity and the
    student's bound: the courses with the most free seats, each pair a student taking fewer courses."""
    enrolled = Counter(course for course, _ in school.enrolments)
    taking = Counter(student for _, student in school.enrolments)
    free = {course: capacity - enrolled[course] for course, _, _, capacity in school.courses}
    students = iter(pk for pk, _, _ in school.students if taking[pk] < limit)
    members = set(school.enrolments)
    pairs = []
    for course in sorted(free, key=lambda pk: (-free[pk], pk)):
        while free[course] > 0 and len(pairs) < count:
            student = next(students, None)
            if student is None:
                break
            if (course, student) not in members:
                pairs.append((course, student))
                free[course] -= 1
    if len(pairs) < count:
        raise RuntimeError(f"the school has room for {len(pairs)} enrolments, the run needs {count}")
    return pairs


def operations(conn: sqlite3.Connection, data: Dataset, loaded: R.Loaded, runs: int) -> list[Operation]:
    product = _detail_product(data)
    post = data.posts[len(data.posts) // 2][-1].id
    top, location = loaded.first_employee, loaded.first_location
    at = data.now

    first, second = _busiest(loaded.school.enrolments, 0)[:2]
    instructor = _busiest(loaded.school.teaching, 1)[0]
    limit = R.max_courses_per_student()
    pairs = enrolment_pairs(loaded.school, limit, runs + 1)

    def read_back():
        return R.product_detail(product), S.product_detail(conn, product)

    def enrolled():
        return R.enrolment_of(*pairs[0]), S.enrolment_of(conn, *pairs[0])

    def both(key: str, name: str, redis_side, sql_side, *args) -> Operation:
        return Operation(key, name, lambda n: redis_side(*args), lambda n: sql_side(conn, *args))

    return [
        both("1", "product list by average rating, with counts", R.product_list_by_rating, S.product_list_by_rating),
        both("2", "product detail with its 3 newest reviews", R.product_detail, S.product_detail, product),
        both("3", f"products of one type ({TYPE}) with its fields", R.products_of_type, S.products_of_type, TYPE),
        both("4", "students in both of two courses", R.students_in_both, S.students_in_both, first, second),
        both("5", "courses of one instructor", R.courses_of_instructor, S.courses_of_instructor, instructor),
        both("6", "post with its revision history page", R.post_history, S.post_history, post),
        both("7a", "reports at depth 2 of the top manager", R.reports_at_depth, S.reports_at_depth, top, 2),
        both("7b", "whole subtree of the top manager", R.subtree, S.subtree, top),
        both("8", "monthly average temperature over a year", R.monthly_temperature, S.monthly_temperature, location),
        Operation(
            "9",
            "add a review with all its derived data",
            lambda n: R.add_review(product, n, at + n),
            lambda n: S.add_review(conn, product, n, at + n),
            check=read_back,
        ),
        Operation(
            "10",
            "enrol a student, within both bounds",
            lambda n: R.enrol(*pairs[n]),
            lambda n: S.enrol(conn, *pairs[n], limit),
            check=enrolled,
        ),
    ]


def page_list(data: Dataset, loaded: R.Loaded) -> list[tuple[str, str, str]]:
    product, post = _detail_product(data), data.posts[len(data.posts) // 2][-1].id
    return [
        ("catalog", "list", "/catalog/products/?o=-rating"),
        ("catalog", "detail", f"/catalog/products/{product}/"),
        ("cms", "list", "/cms/posts/"),
        ("cms", "detail", f"/cms/posts/{post}/"),
        ("cms", "history", f"/cms/posts/{post}/history/"),
        ("school", "list", "/school/courses/"),
        ("school", "detail", f"/school/courses/{_busiest(loaded.school.enrolments, 0)[0]}/"),
        ("orgchart", "list", "/orgchart/employees/"),
        ("orgchart", "detail", f"/orgchart/employees/{loaded.first_employee}/"),
        ("orgchart", "sensor", f"/orgchart/locations/{loaded.first_location}/"),
    ]


@dataclass
class Prepared:
    """Both sides loaded with the same data set, and the operations to ask of them."""

    data: Dataset
    loaded: R.Loaded
    conn: sqlite3.Connection
    sql_loads: list[R.Load]
    operations: list[Operation]


@contextmanager
def prepared(scale: str, progress=lambda text: None):
    """Generate the data set, load a scratch Redis and a scratch SQLite with it; both go away on exit."""
    budget = BUDGETS[scale]
    progress(f"generating the {scale} data set")
    data = generate(SCALES[scale])
    with (
        tempfile.TemporaryDirectory(prefix="rdash-bench-") as tmp,
        scratch_redis(Path(tmp)) as server,
        scratch_database(),
    ):
        progress("loading Redis through the apps' store bulk paths")
        loaded = R.load(data, other_database(server))
        progress("loading SQLite")
        conn = S.connect(Path(tmp) / "normalized.sqlite3")
        try:
            sql_loads = S.load(conn, data, loaded.first_employee, loaded.first_location, loaded.school)
            yield Prepared(data, loaded, conn, sql_loads, operations(conn, data, loaded, budget.runs))
        finally:
            conn.close()


def benchmark(scale: str, progress=lambda text: None) -> Outcome:
    budget = BUDGETS[scale]
    started = datetime.now(UTC)
    with prepared(scale, progress) as ready:
        data, loaded = ready.data, ready.loaded
        results = run(ready.operations, budget.runs, budget.min_runs, budget.seconds, progress)
        progress("timing whole pages")
        timed_pages = pages.time_pages(page_list(data, loaded), budget.page_runs)
        redis_version = client().info("server")["redis_version"]
    meta = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "scale": scale,
        "command": "python manage.py benchmark " + ("--tiny" if scale == "tiny" else f"--scale {scale}"),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, {platform.system()} {platform.release()}",
        "redis": redis_version,
        "sqlite": sqlite3.sqlite_version,
        "python": platform.python_version(),
        "records": {
            "products": len(data.products),
            "reviews": data.reviews,
            "posts": len(data.posts),
            "revisions": data.revisions,
            "employees": len(data.org.people),
            "samples": data.samples,
            "courses": len(loaded.school.courses),
            "students": len(loaded.school.students),
            "enrolments": len(loaded.school.enrolments),
        },
    }
    return Outcome(meta, results, loaded.loads, ready.sql_loads, timed_pages)
