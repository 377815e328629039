"""One benchmark run: scratch servers, every app's part loaded on every side, every operation
checked then timed, the floors, the pages, the load rates and each part's own measurements.

Nothing touches the development data: the Redis is a server of its own in a
temporary directory (the clients and the session cache are pointed at it for
the run and back afterwards), the SQLite file sits beside it, PostgreSQL is a
cluster initialised there and stopped at the end (three databases: ``sql``,
the e-book's plain model; ``dba``, its copy with a DBA's precomputation; and
``orm``, the Django ORM's copy), and the signed-in user for
the page timings lives in a throwaway in-memory database (the test runner's
own database, under tests). Without PostgreSQL's binaries the run says how to
install them and goes on with SQLite alone.
"""

from __future__ import annotations

import copy
import os
import platform
import re
import sqlite3
import tempfile
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import django.test.signals  # noqa: F401  (its receivers rebuild the cache handlers when CACHES changes)
import redis as redis_py
from django.conf import settings
from django.db import connection
from django.test.utils import override_settings
from django.utils.module_loading import autodiscover_modules

from config.benchmark import exchange, orm, pages, panelcost, placement, postgres, redisrun, seeding
from config.benchmark.registry import Extra, Load, Operation, Part, registry
from config.benchmark.runner import Result, Sides, Timing, floors, run
from config.benchmark.sql import Db
from config.embedded import EmbeddedRedis
from config.redis import client, is_dev_server, reset_clients

SOCKET_TIMEOUT = 600.0  # seconds


@dataclass(frozen=True)
class Budget:
    runs: int  # at most, per side and operation
    min_runs: int
    seconds: float  # per side and operation, once min_runs are done
    page_runs: int
    floor_runs: int
    ceiling_requests: int  # for redis-benchmark
    ceiling_runs: int = 3  # redis-benchmark runs per ceiling, the best kept
    exchange_seconds: float | None = None  # each app's import, at most (None: the whole round trip)


PAGE_RUNS = 300  # fetches of each page and each of its floors: enough samples for a steady p95

BUDGETS = {
    "tiny": Budget(
        runs=3, min_runs=2, seconds=0.05, page_runs=2, floor_runs=20, ceiling_requests=20_000, ceiling_runs=2
    ),
    "demo": Budget(runs=200, min_runs=10, seconds=2.0, page_runs=PAGE_RUNS, floor_runs=2_000, ceiling_requests=300_000),
    "large": Budget(
        runs=200,
        min_runs=5,
        seconds=3.0,
        page_runs=PAGE_RUNS,
        floor_runs=2_000,
        ceiling_requests=300_000,
        exchange_seconds=300.0,
    ),  # fmt: skip
}
DEFAULT = object()  # the scale's own exchange budget


@dataclass
class Outcome:
    meta: dict
    results: list[Result] = field(default_factory=list)
    floors: dict[str, Timing] = field(default_factory=dict)
    loads: dict[str, list[Load]] = field(default_factory=dict)  # side -> its loads
    ceiling: seeding.Ceiling | None = None
    sized_ceilings: dict[str, seeding.Ceiling] = field(default_factory=dict)  # load -> at its bytes per command
    replays: dict[str, seeding.Replay] = field(default_factory=dict)  # load -> its own commands' ceiling
    pages: list[pages.PageResult] = field(default_factory=list)
    extras: list[Extra] = field(default_factory=list)
    exchange: list[exchange.Exchanged] = field(default_factory=list)
    exchange_seconds: float | None = None  # the import budget the exchange ran with
    exchange_note: str = ""  # why it did not run
    postgres_note: str = ""


@contextmanager
def clients_pointed_at(url: str):
    """Every client (domain, raw, sessions) pointed at the scratch Redis ``url`` for the block."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["LOCATION"] = url
    hosts = [*settings.ALLOWED_HOSTS, "testserver"]
    try:
        # A bulk load (the org's one import transaction) or a long command (a large move) is waited for and
        # measured whole, not cut at the web's socket timeout and retried.
        with override_settings(
            REDIS_URL=url, REDIS_SOCKET_TIMEOUT=SOCKET_TIMEOUT, CACHES=caches, ALLOWED_HOSTS=hosts,
            SECURE_SSL_REDIRECT=False,
        ):  # fmt: skip
            reset_clients()
            if is_dev_server():
                raise RuntimeError("the benchmark must not run against the development Redis")
            yield
    finally:
        reset_clients()


@contextmanager
def scratch_redis(directory: Path):
    """A redis-server of our own, with every client pointed at it."""
    server = EmbeddedRedis(directory / "redis")
    server.ensure_running()
    try:
        with clients_pointed_at(server.url):
            yield server
    finally:
        server.stop()


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


def operation_order(op: Operation) -> tuple[int, str]:
    number = re.match(r"\d+", op.key)
    return (int(number.group()) if number else 10**6, op.key)


def parts(scale: str, only: tuple[str, ...] = ()) -> list[Part]:
    """Every app's registered part (or those of ``only``), at ``scale``."""
    autodiscover_modules("benchmark")
    unknown = set(only) - set(registry.parts)
    if unknown:
        raise ValueError(f"no benchmark part for {', '.join(sorted(unknown))}; there are {', '.join(registry.parts)}")
    return [cls(scale) for cls in registry.ordered() if not only or cls.app in only]


def _load_sql(db: Db, chosen: list[Part]) -> list[Load]:
    for p in chosen:
        db.script(p.schema)
    loads = [load for p in chosen for load in p.load_sql(db)]
    db.after_load()
    return loads


@dataclass
class Prepared:
    """Every side loaded with the same records, and the operations to ask of them."""

    parts: list[Part]
    server: EmbeddedRedis
    redis: redisrun.RedisRun
    sides: Sides
    loads: dict[str, list[Load]]
    operations: list[Operation]
    replays: dict[str, seeding.Replay]  # load -> its bytes replayed by redis-cli --pipe
    postgres_note: str = ""
    postgres_version: str = ""


@contextmanager
def prepared(scale: str, progress=lambda text: None, use_postgres: bool = True, only: tuple[str, ...] = ()):
    """Generate the records, load a scratch Redis, SQLite and PostgreSQL with them; all go away on exit."""
    budget = BUDGETS[scale]
    chosen = parts(scale, only)
    progress(f"generating the {scale} records of {', '.join(p.app for p in chosen)}")
    for p in chosen:
        p.generate()
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rdash-bench-")))
        servers = stack.enter_context(placement.client_pinned())  # and the scratch servers apart from it
        server = stack.enter_context(scratch_redis(tmp))
        placement.pin_server(server.pid(), servers)
        stack.enter_context(scratch_database())
        captures = tmp / "captures" if seeding.can_replay() else None  # the loads' bytes, for their replays
        if captures is not None:
            captures.mkdir()

        def replay(capture: Path, sent: int) -> seeding.Replay:
            progress(f"{capture.stem}: its bytes replayed by redis-cli --pipe on a fresh server")
            return seeding.replayed(capture, servers, sent)

        run_ = redisrun.RedisRun(server, captures, replay)
        progress("loading Redis through the apps' stores, each load's bytes replayed right after it")
        loads = {"redis": [load for p in chosen for load in p.load_redis(run_)]}
        replays = {load.app: load.replay or seeding.Replay(note=seeding.CLI_HINT) for load in loads["redis"]}
        sides = Sides(server_time={"redis": redisrun.server_ms}, redis_server_time=redisrun.server_ms)
        progress("loading SQLite")
        sides.sqlite = Db.sqlite(tmp / "normalized.sqlite3")
        stack.callback(sides.sqlite.close)
        loads["sqlite"] = _load_sql(sides.sqlite, chosen)
        note, version = "", ""
        bin_dir = postgres.binaries() if use_postgres else None
        if bin_dir is None:
            note = "PostgreSQL left out: " + (postgres.INSTALL_HINT if use_postgres else "--no-postgres")
            progress(note)
        else:
            progress("starting a scratch PostgreSQL cluster and loading it (SQL and ORM databases)")
            cluster = stack.enter_context(postgres.scratch_postgres(tmp, bin_dir))
            placement.pin_server(cluster.pid(), servers)  # the postmaster: the backends it forks inherit it
            version = cluster.version()
            loading = Db.postgresql(cluster.conninfo("sql"))
            loads["postgres"] = _load_sql(loading, chosen)
            loading.close()
            admin = Db.postgresql(cluster.conninfo("postgres"))
            stack.callback(admin.close)
            admin.execute("CREATE DATABASE orm TEMPLATE sql")  # the ORM's own copy: a file copy, not a second load
            admin.execute("CREATE DATABASE dba TEMPLATE sql")  # the DBA's: the same rows, then its precomputation
            sides.postgres = Db.postgresql(cluster.conninfo("sql"))
            stack.callback(sides.postgres.close)
            progress("PostgreSQL: the DBA's precomputation added to its copy (aggregates, rollups, indexes)")
            sides.dba = Db.postgresql(cluster.conninfo("dba"))
            stack.callback(sides.dba.close)
            for p in chosen:
                if p.dba_schema:
                    sides.dba.conn.execute(p.dba_schema, prepare=False)
            sides.dba.execute("VACUUM ANALYZE")
            sides.orm = stack.enter_context(orm.database_alias(cluster.django_settings("orm")))
            sides.server_time["postgres"] = lambda: postgres.server_ms(admin, "sql")
            sides.server_time["dba"] = lambda: postgres.server_ms(admin, "dba")
            sides.server_time["orm"] = lambda: postgres.server_ms(admin, "orm")

            def reset():
                postgres.reset_stats(admin)

            sides.reset = {"postgres": reset, "dba": reset, "orm": reset}
        operations = sorted((op for p in chosen for op in p.operations(budget.runs)), key=operation_order)
        yield Prepared(chosen, server, run_, sides, loads, operations, replays, note, version)


def _exchange_flag(scale: str, seconds) -> str:
    if seconds is False:
        return " --no-exchange"
    if seconds == BUDGETS[scale].exchange_seconds:
        return ""
    return f" --exchange-seconds {seconds or 0:g}"


def floor_calls(sides: Sides) -> dict:
    calls = {"redis": lambda: client().ping()}
    if sides.sqlite is not None:
        calls["sqlite"] = sides.sqlite.floor
    if sides.postgres is not None:
        calls["postgres"] = sides.postgres.floor
    if sides.dba is not None:
        calls["dba"] = sides.dba.floor
    if sides.orm is not None:
        calls["orm"] = lambda: orm.floor(sides.orm)
    return calls


def benchmark(
    scale: str, progress=lambda text: None, use_postgres: bool = True, only=(), exchange_seconds=DEFAULT
) -> Outcome:
    """One run. ``exchange_seconds``: each app's import budget in the export/import round trip (by default the
    scale's; None for no limit; False leaves the round trip out)."""
    budget = BUDGETS[scale]
    if exchange_seconds is DEFAULT:
        exchange_seconds = budget.exchange_seconds
    started = datetime.now(UTC)
    with prepared(scale, progress, use_postgres, only) as ready:
        outcome = Outcome({}, loads=ready.loads, replays=ready.replays, postgres_note=ready.postgres_note)
        progress("redis-benchmark -P 32 on the same server")
        requests, runs = budget.ceiling_requests, budget.ceiling_runs
        outcome.ceiling = seeding.redis_benchmark(ready.server, requests, runs=runs)
        for load in ready.loads["redis"]:
            size = seeding.value_size(load.bytes_per_command)
            outcome.sized_ceilings[load.app] = seeding.redis_benchmark(ready.server, requests, size, runs)
        progress("timing each side's floor")
        redisrun.rewritten()  # no rewrite of the append-only file beside what is timed from here
        outcome.floors = floors(floor_calls(ready.sides), budget.floor_runs)
        outcome.results = run(ready.operations, ready.sides, budget.runs, budget.min_runs, budget.seconds, progress)
        progress("timing whole pages beside their floors")
        page_list = [(p.app, kind, path) for p in ready.parts for kind, path in p.pages()]
        page_list += pages.site_pages() + pages.key_browser_pages([p.app for p in ready.parts])
        outcome.pages = pages.time_pages(page_list, budget.page_runs)
        progress("timing the Redis panel at a few commands and at thousands")
        outcome.extras += panelcost.measure(budget.page_runs * 10)
        for p in ready.parts:
            progress(f"{p.app}: its own measurements")
            outcome.extras += p.extras(ready.redis)
        if exchange_seconds is False:
            outcome.exchange_note = "left out (--no-exchange)"
        else:
            outcome.exchange_seconds = exchange_seconds
            with tempfile.TemporaryDirectory(prefix="rdash-exchange-") as folder:
                outcome.exchange = exchange.measure(
                    [p.app for p in ready.parts], Path(folder), exchange_seconds, progress
                )
        redis_version = client().info("server")["redis_version"]
        records = {name: count for p in ready.parts for name, count in p.records().items()}
        postgres_version = ready.postgres_version
    outcome.meta = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "scale": scale,
        "command": "python manage.py benchmark "
        + ("--tiny" if scale == "tiny" else f"--scale {scale}")
        + "".join(f" --only {app}" for app in only)
        + _exchange_flag(scale, exchange_seconds),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, {platform.system()} {platform.release()}",
        "redis": redis_version,
        "redis_parser": "hiredis" if redis_py.utils.HIREDIS_AVAILABLE else "pure Python",
        "sqlite": sqlite3.sqlite_version,
        "postgresql": postgres_version,
        "python": platform.python_version(),
        "records": records,
    }
    return outcome
