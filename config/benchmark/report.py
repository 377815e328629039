"""The benchmark's tables, as text for the terminal (and the README) and as JSON."""

from __future__ import annotations

from config.benchmark.pages import PageResult
from config.benchmark.redisside import Load
from config.benchmark.runner import Result


def _ms(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table: readable in a terminal, pastes into the README as is."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def operations_table(results: list[Result]) -> list[str]:
    header = [
        "#", "operation", "Redis median ms", "Redis p95 ms", "SQL median ms", "SQL p95 ms",
        "SQL / Redis", "round trips", "commands", "runs (Redis/SQL)",
    ]  # fmt: skip
    rows = [
        [
            r.op.key,
            r.op.name,
            _ms(r.redis.median_ms),
            _ms(r.redis.p95_ms),
            _ms(r.sql.median_ms),
            _ms(r.sql.p95_ms),
            f"{r.ratio:.1f}×",
            str(r.round_trips),
            str(r.commands),
            f"{len(r.redis.samples)}/{len(r.sql.samples)}",
        ]
        for r in results
    ]
    return _table(header, rows)


def loads_table(redis_loads: list[Load], sql_loads: list[Load]) -> list[str]:
    sql = {load.app: load for load in sql_loads}
    header = ["data", "records", "Redis writes/s", "SQLite writes/s", "Redis memory per record"]
    rows = []
    for load in redis_loads:
        memory = ", ".join(f"{name}: {value:,.0f} B" for name, value in load.per_record.items())
        other = sql.get(load.app)
        rows.append([load.app, f"{load.records:,}", f"{load.rate:,.0f}", f"{other.rate:,.0f}" if other else "", memory])
    return _table(header, rows)


def pages_table(pages: list[PageResult]) -> list[str]:
    header = ["page", "path", "median ms", "p95 ms", "Redis ms (median)", "the rest ms", "round trips"]
    rows = [
        [
            f"{p.app} {p.kind}",
            f"`{p.path}`",
            _ms(p.total.median_ms),
            _ms(p.total.p95_ms),
            _ms(p.redis.median_ms),
            _ms(p.rest_ms),
            str(p.round_trips),
        ]
        for p in pages
    ]
    return _table(header, rows)


def as_json(
    meta: dict, results: list[Result], redis_loads: list[Load], sql_loads: list[Load], pages: list[PageResult]
) -> dict:
    return {
        **meta,
        "operations": [
            {
                "key": r.op.key,
                "name": r.op.name,
                "redis": {"median_ms": r.redis.median_ms, "p95_ms": r.redis.p95_ms, "runs": len(r.redis.samples)},
                "sql": {"median_ms": r.sql.median_ms, "p95_ms": r.sql.p95_ms, "runs": len(r.sql.samples)},
                "ratio": r.ratio,
                "round_trips": r.round_trips,
                "commands": r.commands,
            }
            for r in results
        ],
        "loads": {
            "redis": [
                {"app": x.app, "records": x.records, "seconds": x.seconds, "bytes": x.bytes, "per_record": x.per_record}
                for x in redis_loads
            ],
            "sql": [{"app": x.app, "records": x.records, "seconds": x.seconds} for x in sql_loads],
        },
        "pages": [
            {
                "app": p.app,
                "kind": p.kind,
                "path": p.path,
                "median_ms": p.total.median_ms,
                "p95_ms": p.total.p95_ms,
                "redis_median_ms": p.redis.median_ms,
                "round_trips": p.round_trips,
            }
            for p in pages
        ],
    }
