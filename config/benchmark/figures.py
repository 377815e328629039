"""A benchmark run's outcome as the figures it records (``--json``), which every table is built
from (``report``); and the shipped results file (``--results``) the screens' SQL twins read."""

from __future__ import annotations


def as_json(outcome) -> dict:
    def timing(t):
        return {"median_ms": t.median_ms, "p95_ms": t.p95_ms, "cpu_ms": t.cpu_ms, "server_ms": t.server_ms,
                "runs": len(t.samples)}  # fmt: skip

    def load(x):
        return {
            "app": x.app, "records": x.records, "seconds": x.seconds, "bytes": x.bytes, "rate": x.rate,
            "per_record": x.per_record, "commands": x.commands, "commands_per_second": x.commands_per_second,
            "server_commands": x.server_commands,
            "input_bytes": x.input_bytes, "bytes_per_command": x.bytes_per_command,
            "server_cpu_seconds": x.server_cpu_seconds, "server_busy": x.server_busy,
        }  # fmt: skip

    def ceiling_of(c):
        return {"commands_per_second": c.commands_per_second, "command": c.command, "note": c.note,
                "data_size": c.data_size, "rates": c.rates}  # fmt: skip

    ceiling = outcome.ceiling
    return {
        **outcome.meta,
        "postgres_note": outcome.postgres_note,
        "floors": {side: timing(t) for side, t in outcome.floors.items()},
        "operations": [
            {
                "key": r.op.key,
                "name": r.op.name,
                "write": r.op.write,
                "round_trips": r.round_trips,
                "commands": r.commands,
                "sides": {
                    side: {
                        **timing(t),
                        "statements": r.statements.get(side),
                        "round_trips": r.round_trips if side == "redis" else r.statements.get(side),
                        "sql": r.sent.get(side),
                    }
                    for side, t in r.timings.items()
                },
            }
            for r in outcome.results
        ],  # fmt: skip
        "loads": {side: [load(x) for x in loads] for side, loads in outcome.loads.items()},
        "ceiling": ceiling_of(ceiling),
        "sized_ceilings": {app: ceiling_of(c) for app, c in outcome.sized_ceilings.items()},
        "replays": {
            app: {
                "commands": r.commands,
                "seconds": r.seconds,
                "errors": r.errors,
                "note": r.note,
                "commands_per_second": r.commands_per_second,
                "sent": r.sent,
            }
            for app, r in outcome.replays.items()
        },  # fmt: skip
        "pages": [
            {
                "app": p.app,
                "kind": p.kind,
                "path": p.path,
                "median_ms": p.total.median_ms,
                "p95_ms": p.total.p95_ms,
                "floor_ms": p.floor.median_ms,
                "floor_p95_ms": p.floor.p95_ms,
                "plain_ms": p.plain.median_ms,
                "plain_p95_ms": p.plain.p95_ms,
                "redis_median_ms": p.redis.median_ms,
                "round_trips": p.round_trips,
            }
            for p in outcome.pages
        ],  # fmt: skip
        "extras": [
            {"key": x.key, "name": x.name, "ms": x.ms, "detail": x.detail, "longest_command_ms": x.longest_command_ms}
            for x in outcome.extras
        ],
        "exchange_seconds": outcome.exchange_seconds,
        "exchange_note": outcome.exchange_note,
        "exchange": [
            {
                "app": x.app,
                "records": x.records,
                "counts": x.counts,
                "bytes": x.bytes,
                "export_seconds": x.export_seconds,
                "export_rate": x.export_rate,
                "check_seconds": x.check_seconds,
                "checked": x.checked,
                "check_rate": x.check_rate,
                "write_seconds": x.write_seconds,
                "imported": x.imported,
                "write_rate": x.write_rate,
                "write_commands": x.write_commands,
                "write_commands_per_second": x.write_commands_per_second,
                "import_rate": x.import_rate,
                "complete": x.complete,
                "violations": x.violations,
                "identical": x.identical,
                "differing": x.differing,
                "note": x.note,
                "ok": x.ok,
            }
            for x in outcome.exchange
        ],  # fmt: skip
    }


RESULTS_SIDES = ("redis", "postgres", "dba", "orm")  # what a screen's twin shows (SQLite's run is the tests')
RESULTS_FIGURES = ("median_ms", "p95_ms", "statements", "sql")


def merged_results(figures: dict, earlier: dict | None) -> dict:
    """The results file with this run's operations put in at its scale: per operation, each side's median,
    p95, statements and their text, with the run's date and command. Operations this run left out
    (``--only``) keep their earlier figures, each still with its own run's date and command."""
    results = {scale: dict(ran) for scale, ran in (earlier or {}).items()}
    at_scale = results.setdefault(figures["scale"], {})
    for op in figures["operations"]:
        sides = {
            side: {name: timing[name] for name in RESULTS_FIGURES if timing.get(name) is not None}
            for side, timing in op["sides"].items()
            if side in RESULTS_SIDES
        }
        at_scale[op["key"]] = {"name": op["name"], "date": figures["date"], "command": figures["command"],
                               "round_trips": op["round_trips"], "sides": sides}  # fmt: skip
    return results
