"""The benchmark's tables, as Markdown for the terminal (and docs/performance.md), from the figures
``figures.as_json`` records."""

from __future__ import annotations

import math

from config.benchmark import panelcost
from config.benchmark.redisrun import SLOW_US
from config.benchmark.runner import LABELS, SIDES

GOAL_ROLLUP = {"1", "8"}  # the aggregate list and the monthly rollup: the 100× goal
GOAL_ROLLUP_SCALE = "large"  # judged where SQL's work grows with the data (at demo, 100× is below Redis's PING)
GOAL_PAGE_OVER_FLOOR = 2.0  # a page's median, at most this many times its floor's (the plain list page's)
GOAL_PAGE_P95_MS = 10.0
# Operations where the DBA's one statement can answer faster than the Redis model by the nature of the
# pattern, each with why in one line.
INHERENT: dict[str, str] = {
    "7b": "the adjacency pattern walks one reports set per manager in Redis, in bounded slices so no "
    "command holds the server, where PostgreSQL's recursive query follows an index in one plan; a "
    "precomputed closure would make every move cost its whole subtree",
}
# Why a loss whose gap lies in the client is the client's and not the model's: the same for every operation.
CLIENT_WHY = (
    "redis-py builds each command and parses each reply in Python, and the store decodes them, where "
    "psycopg 3 does both in C (libpq): inherent to the Python client, not to the model"
)
SERVER_WHY = "Redis's own time is the larger: a model to improve"
GOAL_SEEDING_SHARE = 0.20  # of what the server takes of the load's own commands (its replay by redis-cli --pipe)


def _ms(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.3f}" if value < 10 else f"{value:,.1f}"


def _times(value: float) -> str:
    return "" if value is None or math.isnan(value) else f"{value:,.1f}×"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _sides(figures: dict) -> list[str]:
    return [s for s in SIDES if s in figures["floors"]]


def floors_table(figures: dict) -> list[str]:
    rows = [
        [LABELS[s], "PING" if s == "redis" else "SELECT 1", _ms(f["median_ms"]), _ms(f["p95_ms"]), _ms(f["cpu_ms"])]
        for s, f in ((s, figures["floors"][s]) for s in _sides(figures))
    ]
    return _table(["side", "request", "median ms", "p95 ms", "client CPU ms"], rows)


def operations_table(figures: dict) -> list[str]:
    sides = _sides(figures)
    others = [s for s in sides if s != "redis"]
    floors = figures["floors"]
    header = ["#", "operation", *(f"{LABELS[s]} ms (floor {_ms(floors[s]['median_ms'])})" for s in sides),
              *(f"{LABELS[s]} / Redis" for s in others),
              "round trips", "commands", "SQL statements"]  # fmt: skip
    rows = []
    for op in figures["operations"]:
        t = op["sides"]
        statements = " · ".join(
            f"{LABELS[s].removeprefix('PostgreSQL ')} {t[s]['statements']}"
            for s in others if s in t and t[s].get("statements") is not None and s != "sqlite"
        )  # fmt: skip
        rows.append(
            [op["key"], op["name"], *(_ms(t[s]["median_ms"]) if s in t else "" for s in sides),
             *(_times(t[s]["median_ms"] / t["redis"]["median_ms"]) if s in t else "" for s in others),
             str(op["round_trips"]), str(op["commands"]), statements]
        )  # fmt: skip
    return _table(header, rows)


def split_table(figures: dict) -> list[str]:
    """Each side's median wall time, its client CPU and the server's own time, per request."""
    sides = _sides(figures)
    header = ["#", *(f"{LABELS[s]}: wall / client CPU / server ms" for s in sides)]
    rows = []
    for op in figures["operations"]:
        cells = []
        for s in sides:
            t = op["sides"].get(s)
            server = "" if not t or t["server_ms"] is None else _ms(t["server_ms"])
            cells.append("" if not t else f"{_ms(t['median_ms'])} / {_ms(t['cpu_ms'])} / {server or 'n/a'}")
        rows.append([op["key"], *cells])
    return _table(header, rows)


def seeding_shares(figures: dict) -> dict[str, tuple[float, float]]:
    """Each load's commands/s over redis-benchmark's: with its 3-byte values, and at the load's own size."""
    plain = figures["ceiling"]["commands_per_second"]
    sized = figures.get("sized_ceilings") or {}
    shares = {}
    for load in figures["loads"]["redis"]:
        own = (sized.get(load["app"]) or {}).get("commands_per_second")
        rate = load["commands_per_second"]
        shares[load["app"]] = (rate / plain if plain else 0.0, rate / own if own else 0.0)
    return shares


def replay_shares(figures: dict) -> dict[str, float]:
    """Each load's commands/s over its own bytes' replayed by ``redis-cli --pipe`` (the goal's ceiling);
    loads without a replay are left out."""
    replays = figures.get("replays") or {}
    shares = {}
    for load in figures["loads"]["redis"]:
        ceiling = (replays.get(load["app"]) or {}).get("commands_per_second")
        if ceiling:
            shares[load["app"]] = load["commands_per_second"] / ceiling
    return shares


def server_bound_share(load: dict, own_share: float) -> float:
    """The share at the load's own size that its commands would reach were Redis busy all the load long
    (its share over the server's busy fraction), as redis-benchmark keeps it busy: what the server itself
    allows for these commands, whatever the client. Below the goal, no client could meet it without
    splitting its commands into more, smaller ones, which takes Redis longer for the same records."""
    busy = load.get("server_busy") or 0.0
    return own_share / busy if busy else 0.0


def _ceiling_text(ceiling: dict) -> str:
    """A ceiling as the report prints it: its rate and the command, or why there is none."""
    if ceiling["note"]:
        return ceiling["note"]
    runs = len(ceiling.get("rates") or ())
    best = f", the best of {runs} runs" if runs > 1 else ""
    return f"{ceiling['commands_per_second']:,.0f} commands/s (`{ceiling['command']}`{best})"


def loads_table(figures: dict) -> list[str]:
    ceiling = figures["ceiling"]
    sized = figures.get("sized_ceilings") or {}
    shares = seeding_shares(figures)
    replayed = replay_shares(figures)
    sql = {side: {x["app"]: x for x in figures["loads"].get(side, [])} for side in ("sqlite", "postgres")}
    header = ["data", "records", "Redis records/s", "Redis commands/s", "bytes per command",
              "of redis-benchmark -P 32", "of redis-benchmark -P 32 at the same bytes per command", "Redis CPU busy",
              "the same, Redis busy throughout", "of its own commands replayed by redis-cli --pipe",
              "SQLite rows/s", "PostgreSQL rows/s",
              "Redis memory per record"]  # fmt: skip
    rows = []
    for load in figures["loads"]["redis"]:
        plain, own = shares[load["app"]]
        size = (sized.get(load["app"]) or {}).get("data_size")
        memory = ", ".join(f"{name}: {value:,.0f} B" for name, value in load["per_record"].items())
        other = [sql[side].get(load["app"]) for side in ("sqlite", "postgres")]
        rows.append(
            [load["app"], f"{load['records']:,}", f"{load['rate']:,.0f}", f"{load['commands_per_second']:,.0f}",
             f"{load.get('bytes_per_command', 0):,.0f}", f"{plain:.1%}" if plain else "",
             f"{own:.1%} (`-d {size}`)" if own else "", f"{load.get('server_busy', 0):.0%}",
             f"{server_bound_share(load, own):.1%}" if own else "",
             f"{replayed[load['app']]:.1%}" if load["app"] in replayed else "",
             *(f"{x['rate']:,.0f}" if x else "" for x in other), memory]
        )  # fmt: skip
    notes = [ceiling["note"] or f"redis-benchmark: {_ceiling_text(ceiling)}"]
    notes += [f"at {app}'s bytes per command: {_ceiling_text(c)}" for app, c in sized.items()]
    notes += [f"{app}'s commands replayed by `redis-cli --pipe` on a fresh server: {_replay_text(r)}"
              for app, r in (figures.get("replays") or {}).items()]  # fmt: skip
    capacity = ", ".join(f"{app} {plain:.1%}" for app, (plain, _) in shares.items())
    notes.append(f"Capacity (each load's commands as its client sent them, per second, of redis-benchmark -P 32's "
                 f"on the same server): {capacity}.")  # fmt: skip
    return [*_table(header, rows), "", *notes]


def _replay_text(replay: dict) -> str:
    if replay["note"]:
        return replay["note"]
    errors = f", {replay['errors']:,} error replies" if replay["errors"] else ""
    return (f"{replay['commands_per_second']:,.0f} commands/s ({replay['commands']:,} commands in "
            f"{replay['seconds']:.3f} s{errors})")  # fmt: skip


def _over(page: dict, floor: str) -> float:
    """A page's median over one of its floors' ("floor_ms", the bare view; "plain_ms", the plain list page)."""
    return page["median_ms"] / page[floor] if page.get(floor) else math.nan


def pages_table(figures: dict) -> list[str]:
    header = ["page", "path", "median ms", "p95 ms", "plain list page ms", "page / plain page", "bare floor ms",
              "page / bare floor", "Redis ms", "round trips"]  # fmt: skip
    rows = [
        [f"{p['app']} {p['kind']}", f"`{p['path']}`", _ms(p["median_ms"]), _ms(p["p95_ms"]), _ms(p.get("plain_ms")),
         _times(_over(p, "plain_ms")), _ms(p["floor_ms"]), _times(_over(p, "floor_ms")), _ms(p["redis_median_ms"]),
         str(p["round_trips"])]
        for p in figures["pages"]
    ]  # fmt: skip
    return _table(header, rows)


def _longest(ms: float | None) -> str:
    if ms is None:
        return ""
    return _ms(ms) if ms else f"under {SLOW_US / 1000:g}"


def extras_table(figures: dict) -> list[str]:
    rows = [[x["name"], _ms(x["ms"]), _longest(x["longest_command_ms"]), x["detail"]] for x in figures["extras"]]
    return _table(["measurement", "ms", "longest Redis command ms (SLOWLOG)", "outcome"], rows)


def growth_table(small: dict, large: dict) -> list[str]:
    """Each operation's and page's median at two scales, and the ratio."""
    sides = [s for s in _sides(large) if s in small["floors"]]
    header = ["#", "operation", *(f"{LABELS[s]} {small['scale']} → {large['scale']} ms (×)" for s in sides)]
    before = {op["key"]: op for op in small["operations"]}
    rows = []
    for op in large["operations"]:
        old = before.get(op["key"])
        if old is None:
            continue
        cells = []
        for s in sides:
            a, b = old["sides"].get(s), op["sides"].get(s)
            if a and b:
                ratio = _times(b["median_ms"] / a["median_ms"])
                cells.append(f"{_ms(a['median_ms'])} → {_ms(b['median_ms'])} ({ratio})")
            else:
                cells.append("")
        rows.append([op["key"], op["name"], *cells])
    pages_before = {(p["app"], p["kind"]): p for p in small["pages"]}
    for p in large["pages"]:
        old = pages_before.get((p["app"], p["kind"]))
        if old:
            ratio = _times(p["median_ms"] / old["median_ms"])
            change = f"{_ms(old['median_ms'])} → {_ms(p['median_ms'])} ({ratio})"
            rows.append(["page", f"{p['app']} {p['kind']}", change, *([""] * (len(sides) - 1))])
    return _table(header, rows)


def dba_goal(operations: list[dict]) -> str:
    """Redis at least as fast as the DBA's one statement on every operation, reads and writes; each
    operation that loses says whether the loss is inherent (the client's, or its ``INHERENT`` note)."""
    gaps = [(op["key"], gap) for op in operations if (gap := _dba_gap(op))]
    several = [op["key"] for op in operations if (op["sides"].get("dba") or {}).get("statements", 1) > 1]
    model = [key for key, (_, why) in gaps if why == SERVER_WHY]
    inherent = [key for key, (_, why) in gaps if why != SERVER_WHY]
    verdict = "met" if not gaps else ("not met by " + ", ".join(model) if model else "met but for inherent losses")
    if inherent:
        verdict += f"; inherent losses (see below): {', '.join(inherent)}"
    if several:
        verdict += f"; more than one statement: {', '.join(several)}"
    return f"- every operation at least as fast as {LABELS['dba']} (one statement each): {verdict}"


def _dba_gap(op: dict) -> tuple[str, str] | None:
    """Where an operation's loss to the DBA's statement lies and why, or None where Redis answers first:
    the gap split into the client's CPU (redis-py and the store's decoding, against psycopg's) and the
    server's own time; the larger part says where."""
    redis, dba = op["sides"]["redis"], op["sides"].get("dba")
    if not dba or dba["median_ms"] >= redis["median_ms"]:
        return None
    client = redis["cpu_ms"] - dba["cpu_ms"]
    server = None if None in (redis["server_ms"], dba["server_ms"]) else redis["server_ms"] - dba["server_ms"]
    in_client = server is None or client >= server
    split = f"client CPU {client:+.3f} ms" + ("" if server is None else f", server {server:+.3f} ms")
    where = f"({split}): most of the gap is in {'the client' if in_client else 'the server'}"
    return where, INHERENT.get(op["key"]) or (CLIENT_WHY if in_client else SERVER_WHY)


def dba_losses(figures: dict) -> list[str]:
    """One line per operation where the DBA's statement answers first: where the gap lies and why, so
    the report says whether each loss is inherent rather than only that it exists."""
    lines = []
    for op in figures["operations"]:
        if gap := _dba_gap(op):
            redis, dba = (_ms(op["sides"][side]["median_ms"]) for side in ("redis", "dba"))
            where, why = gap
            lines.append(f"- {op['key']} {op['name']}: {redis} against {dba} ms {where}; {why}")
    return lines


def goals(figures: dict) -> list[str]:
    """The goals, each with whether this run met it."""
    lines = []
    sql_sides = [s for s in ("postgres", "orm") if s in figures["floors"]]
    reads = [op for op in figures["operations"] if not op["write"]]
    for s in sql_sides:
        slower = [op["key"] for op in reads if op["sides"][s]["median_ms"] < op["sides"]["redis"]["median_ms"]]
        verdict = "met" if not slower else f"not met by {', '.join(slower)}"
        lines.append(f"- every read at least as fast as {LABELS[s]}: {verdict}")
    if "dba" in figures["floors"]:
        lines.append(dba_goal(figures["operations"]))
    for op in figures["operations"]:
        if op["key"] in GOAL_ROLLUP:
            for s in sql_sides or ["sqlite"]:
                ratio = op["sides"][s]["median_ms"] / op["sides"]["redis"]["median_ms"]
                verdict = "met" if ratio >= 100 else "not met"
                if figures.get("scale") != GOAL_ROLLUP_SCALE:
                    verdict = f"judged at --scale {GOAL_ROLLUP_SCALE}, {verdict} here"
                lines.append(f"- {op['name']} at least 100× faster than {LABELS[s]}: {ratio:,.1f}×, {verdict}")
    writes = [op for op in figures["operations"] if op["write"]]
    more = [f"{op['key']} ({op['round_trips']})" for op in writes if op["round_trips"] > 1]
    verdict = "met" if not more else f"not met by {', '.join(more)} round trips"
    lines.append(f"- every write one round trip: {verdict}")
    pages = figures.get("pages", [])
    if pages:
        for floor, named in (("plain_ms", "the plain Django list page of its round trips (the floor)"),
                             ("floor_ms", "the bare view of its round trips")):  # fmt: skip
            over = [f"{p['app']} {p['kind']} ({_over(p, floor):.2f}×)" for p in pages
                    if _over(p, floor) > GOAL_PAGE_OVER_FLOOR]  # fmt: skip
            verdict = "met" if not over else f"not met by {', '.join(over)}"
            lines.append(f"- every page's median at most {GOAL_PAGE_OVER_FLOOR:g}× {named}: {verdict}")
        slow = [f"{p['app']} {p['kind']} ({_ms(p['p95_ms'])} ms)" for p in pages if p["p95_ms"] > GOAL_PAGE_P95_MS]
        verdict = "met" if not slow else f"not met by {', '.join(slow)}"
        lines.append(f"- every page's p95 at most {GOAL_PAGE_P95_MS:g} ms: {verdict}")
    panel_goal = panelcost.goal(figures.get("extras", []))
    if panel_goal:
        lines.append(panel_goal)
    replayed = replay_shares(figures)
    if replayed:
        below = [f"{app} ({share:.1%})" for app, share in replayed.items() if share < GOAL_SEEDING_SHARE]
        verdict = "met" if not below else f"not met by {', '.join(below)}"
        untimed = [app for app, replay in (figures.get("replays") or {}).items() if replay["note"]]
        if untimed:
            verdict += f" (not judged: {', '.join(untimed)}, their replays untimed)"
        lines.append(
            f"- seeding at {GOAL_SEEDING_SHARE:.0%} or more of what the server takes of the load's own commands "
            f"(its bytes replayed by redis-cli --pipe right after it): {verdict}"
        )

    if figures.get("exchange"):
        failed = [x["app"] for x in figures["exchange"] if not x["ok"]]
        unchecked = [x["app"] for x in figures["exchange"] if x["identical"] is None]
        verdict = "met" if not failed else f"NOT MET by {', '.join(failed)}"
        if unchecked:
            verdict += f" (not checked at this size: {', '.join(unchecked)}, the import stopped at its budget)"
        lines.append(f"- every app's export re-imports exactly (integrity holds, a second export identical): {verdict}")
    return lines


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value else ""


def _seconds(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:,.1f}"


def _size(value: int) -> str:
    return f"{value / 1e6:,.1f} MB" if value >= 1e6 else f"{value / 1e3:,.1f} kB"


def exchange_table(figures: dict) -> list[str]:
    """Each app's export, its import into the emptied app, and the checks after it."""
    header = ["app", "documents", "files", "export s", "export docs/s", "import: check s", "checked/s", "write s",
              "imported", "written/s", "write commands/s", "of redis-benchmark -P 32", "import docs/s",
              "check_integrity", "second export"]  # fmt: skip
    ceiling = (figures.get("ceiling") or {}).get("commands_per_second")
    rows = []
    for x in figures["exchange"]:
        if x["identical"] is None:
            second = "not checked"
        else:
            second = "byte-identical" if x["identical"] else "DIFFERS: " + ", ".join(x["differing"])
        if not x["complete"]:
            integrity = "not checked"
        else:
            integrity = "holds" if not x["violations"] else f"{len(x['violations'])} VIOLATION(S)"
        rows.append(
            [x["app"], f"{x['records']:,}", _size(x["bytes"]), _seconds(x["export_seconds"]),
             _rate(x["export_rate"]), _seconds(x["check_seconds"]), _rate(x["check_rate"]),
             _seconds(x["write_seconds"]), f"{x['imported']:,}" + ("" if x["complete"] else " (stopped)"),
             _rate(x["write_rate"]), _rate(x["write_commands_per_second"]),
             f"{x['write_commands_per_second'] / ceiling:.1%}" if ceiling and x["write_commands"] else "",
             _rate(x["import_rate"]), integrity, second]
        )  # fmt: skip
    budget = figures.get("exchange_seconds")
    limit = f"each import stopped after {budget:g} s" if budget else "no time limit"
    notes = [f"{x['app']}: {x['note']}" for x in figures["exchange"] if x["note"]]
    notes += [f"{x['app']}: {v}" for x in figures["exchange"] for v in x["violations"][:5]]
    return [*_table(header, rows), "", f"Import budget: {limit}.", *notes]


def text(figures: dict, baseline: dict | None = None) -> list[str]:
    m = figures
    sides = ", ".join(LABELS[s] for s in _sides(m))
    lines = [
        f"Benchmark at scale {m['scale']!r}, {m['date']}, {m['machine']}; Redis {m['redis']} ({m['redis_parser']} "
        f"reply parser), SQLite {m['sqlite']}"
        + (f", PostgreSQL {m['postgresql']}" if m["postgresql"] else "")
        + f", Python {m['python']}.",
        "Records: " + ", ".join(f"{count:,} {name}" for name, count in m["records"].items()) + ".",
    ]
    if m["postgres_note"]:
        lines.append(m["postgres_note"] + ".")
    lines += [f"All operations answered alike on every side ({sides}).", "", "Floors:", *floors_table(m), "",
              "Operations (medians):", *operations_table(m), "", "Where the time goes:", *split_table(m), "",
              "Goals:", *goals(m), *(["", f"Where {LABELS['dba']} answers first:", *dba_losses(m)]
                                     if "dba" in m["floors"] and dba_losses(m) else []),
              "", "Loads:", *loads_table(m), "", "Pages against their floors:", *pages_table(m),
              "", "Measurements at this scale:", *extras_table(m)]  # fmt: skip
    if m.get("exchange"):
        lines += ["", "Export and import (export_data, then import_data into the emptied app):", *exchange_table(m)]
    elif m.get("exchange_note"):
        lines += ["", f"Export and import: {m['exchange_note']}."]
    if baseline:
        lines += ["", "Growth:", *growth_table(baseline, m)]
    return lines
