"""What a load-test run chose (``Options``) and what it found (``Report``), as lines to print."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, math.ceil(fraction * len(sorted_values)) - 1))  # nearest rank
    return sorted_values[index]


LATENCIES = (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))


def _at_target(figures: dict) -> str:
    best = figures.get("at_target")
    if figures["steps"]:
        return f"{best['throughput']:.1f} req/s with {best['clients']} clients" if best else "none within it"
    p95 = figures["latency_ms"]["p95"]
    within = p95 <= figures["options"]["p95_target_ms"]
    return f"{figures['throughput']:.1f} req/s, p95 {'within' if within else 'over'} it"


def _target_rate(figures: dict) -> float:
    if figures["steps"]:
        return figures["at_target"]["throughput"] if figures.get("at_target") else 0.0
    return figures["throughput"] if figures["latency_ms"]["p95"] <= figures["options"]["p95_target_ms"] else 0.0


def comparison(before: dict, after: dict) -> list[str]:
    """Two runs side by side (``before`` from ``loadtest --json``, ``after`` this one): each ramp step's
    requests per second and p95, and the throughput at the p95 target, with the change."""
    out = [f"against the baseline of {before['date']} ({before['machine']}):"]
    keys = ("clients", "seconds", "workers", "threads", "scale", "p95_target_ms")
    differ = [f"{k} {before['options'][k]} → {after['options'][k]}" for k in keys
              if before["options"].get(k) != after["options"].get(k)]  # fmt: skip
    if differ:
        out.append(f"  NOTE: the runs differ in {', '.join(differ)}: compare like with like")
    if before["machine"] != after["machine"]:
        out.append("  NOTE: another machine: compare runs of one machine, in one sitting")
    out.append("| clients | baseline req/s | baseline p95 ms | now req/s | now p95 ms | req/s change |")
    out.append("|---|---|---|---|---|---|")
    then = {step["clients"]: step for step in before["steps"]}
    rows = after["steps"] or [{"clients": after["options"]["clients"], "throughput": after["throughput"],
                               "p95_ms": after["latency_ms"]["p95"]}]  # fmt: skip
    if not before["steps"]:
        whole = {"throughput": before["throughput"], "p95_ms": before["latency_ms"]["p95"]}
        then = {before["options"]["clients"]: whole}
    for step in rows:
        old = then.get(step["clients"])
        change = f"{step['throughput'] / old['throughput']:.2f}×" if old and old["throughput"] else ""
        old_cells = [f"{old['throughput']:.1f}", f"{old['p95_ms']:.1f}"] if old else ["", ""]
        cells = [str(step["clients"]), *old_cells, f"{step['throughput']:.1f}", f"{step['p95_ms']:.1f}", change]
        out.append("| " + " | ".join(cells) + " |")
    target = after["options"]["p95_target_ms"]
    a, b = _target_rate(before), _target_rate(after)
    change = f" ({b / a:.2f}×)" if a and b else ""
    out.append(f"throughput at the p95 target ({target:g} ms): baseline {_at_target(before)}; now {_at_target(after)}"
               + change)  # fmt: skip
    return out


@dataclass
class Options:
    seconds: float = 30.0
    clients: int = 16
    port: int = 0  # 0: a free loopback port
    workers: int = 2
    threads: int = 8
    appendfsync: str = "everysec"
    scale: str = "demo"
    cluster: bool = False  # a 3-primary Redis Cluster (a replica each) instead of one server
    kill_redis: bool = False  # SIGKILL the Redis mid-run, restart it from its append-only file
    kill_primary: bool = False  # on a cluster: SIGKILL one primary mid-run; its replica takes over
    stop_redis: bool = False  # SHUTDOWN the Redis mid-run, start it again a moment later
    outage: float = 1.5  # seconds Redis stays down in a fault
    fsync_interval: float = 1.0  # what appendfsync everysec may lose, at most, on a crash
    p95_target_ms: float = 10.0  # the pages' target: the throughput is reported at it
    ramp: bool = False  # 1, 2, 4 ... clients, ``seconds`` each: the throughput at the p95 target


@dataclass
class FaultReport:
    kind: str
    at: float  # seconds into the run
    down_for: float
    unavailable: int = 0  # 503 pages served meanwhile
    served_after: int = 0  # successful responses that started after Redis was back
    before_window: int = 0  # writes acknowledged more than one fsync interval before a kill
    in_window: int = 0  # writes acknowledged within the last fsync interval before a kill
    in_window_lost: int = 0  # of those, not found (everysec allows it; SIGKILL of Redis alone rarely does)


@dataclass
class Report:
    options: Options
    port: int = 0
    seconds: float = 0.0
    requests: int = 0
    reads: int = 0
    writes: int = 0
    store_writes: int = 0  # straight through a store, for data no screen writes
    by_app: dict = field(default_factory=dict)  # app -> (requests, acknowledged writes)
    latency_by_app: dict = field(default_factory=dict)  # (app, 'reads' or 'writes') -> p50, p95 ms
    errors: list = field(default_factory=list)
    latencies: list = field(default_factory=list)  # seconds, sorted
    acknowledged: int = 0
    checked: int = 0
    doubtful: int = 0
    lost: list = field(default_factory=list)
    integrity: str = ""
    violations: int = 0
    faults: list = field(default_factory=list)
    server_tracebacks: int = 0
    server_log: str = ""  # the first traceback, when there is one
    refused: Counter = field(default_factory=Counter)
    steps: list = field(default_factory=list)  # a ramp's (clients, requests/s, p95 ms), step by step

    def at_target(self) -> tuple[int, float, float] | None:
        """The ramp step that served the most requests per second with its p95 within the target."""
        within = [step for step in self.steps if step[2] <= self.options.p95_target_ms]
        return max(within, key=lambda step: step[1]) if within else None

    @property
    def ok(self) -> bool:
        return not (self.errors or self.lost or self.violations or self.server_tracebacks) and self.requests > 0

    def throughput(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def as_json(self) -> dict:
        """The figures a later run compares itself with (``loadtest --baseline FILE``)."""
        import os
        import platform
        from datetime import UTC, datetime

        o = self.options
        best = self.at_target()
        return {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{os.cpu_count()} cores, {platform.machine()}, {platform.system()} {platform.release()}",
            "options": {
                "clients": o.clients,
                "seconds": o.seconds,
                "workers": o.workers,
                "threads": o.threads,
                "scale": o.scale,
                "appendfsync": o.appendfsync,
                "ramp": o.ramp,
                "p95_target_ms": o.p95_target_ms,
            },  # fmt: skip
            "requests": self.requests,
            "writes": self.writes,
            "errors": len(self.errors),
            "lost": len(self.lost),
            "throughput": self.throughput(),
            "latency_ms": {name: 1000 * percentile(self.latencies, p) for name, p in LATENCIES},
            "steps": [{"clients": n, "throughput": rps, "p95_ms": p95} for n, rps, p95 in self.steps],
            "at_target": None if best is None else {"clients": best[0], "throughput": best[1], "p95_ms": best[2]},
            "ok": self.ok,
        }

    def lines(self) -> list[str]:
        o = self.options
        ms = [1000 * percentile(self.latencies, p) for p in (0.5, 0.95, 0.99)]
        out = [
            f"loadtest: {self.seconds:.1f} s, {o.clients} signed-in clients, gunicorn {o.workers} workers x "
            f"{o.threads} threads on 127.0.0.1:{self.port}, scratch Redis (appendfsync {o.appendfsync})",
            f"requests: {self.requests} ({self.reads} reads, {self.writes} writes), errors: {len(self.errors)}, "
            f"throughput: {self.throughput():.1f} req/s"
            + (f"; plus {self.store_writes} sensor batches written through the store" if self.store_writes else ""),
            f"latency: p50 {ms[0]:.1f} ms, p95 {ms[1]:.1f} ms, p99 {ms[2]:.1f} ms, "
            f"max {1000 * (self.latencies[-1] if self.latencies else 0):.1f} ms",
        ]
        target = o.p95_target_ms
        if self.steps:
            out += [f"  ramp step: {n} clients, {rps:.1f} req/s, p95 {p95:.1f} ms" for n, rps, p95 in self.steps]
            best = self.at_target()
            out.append(
                f"throughput at the p95 target ({target:g} ms): "
                + (f"{best[1]:.1f} req/s with {best[0]} clients" if best else "no step kept its p95 within it")
            )
        else:
            verdict = "within" if ms[1] <= target else "over"
            out.append(f"throughput at the p95 target ({target:g} ms): {self.throughput():.1f} req/s, p95 {verdict} it")
        for app, (requests, acked) in sorted(self.by_app.items()):
            kinds = [(kind, self.latency_by_app.get((app, kind))) for kind in ("reads", "writes")]
            shown = "".join(f"; {kind} p50 {ms[0]:.1f} ms, p95 {ms[1]:.1f} ms" for kind, ms in kinds if ms)
            out.append(f"  {app}: {requests} requests, {acked} acknowledged writes{shown}")
        lost = len(self.lost)
        out.append(
            f"writes acknowledged: {self.acknowledged}; checked in Redis: {self.checked} (the last write of each "
            f"object, and every CMS version); lost: {lost}"
        )
        if self.refused:
            said = ", ".join(f"{why} {n}" for why, n in sorted(self.refused.items()))
            out.append(f"refused under contention (a clear answer, nothing written): {said}")
        if self.doubtful:
            out.append(f"writes answered 503 in an outage (applied or not: either state accepted): {self.doubtful}")
        for fault in self.faults:
            line = (
                f"fault: {fault.kind} at {fault.at:.1f} s, down {fault.down_for:.1f} s: {fault.unavailable} "
                f"requests got the 503 page, {fault.served_after} served after it came back"
            )
            if fault.kind in ("kill-redis", "kill-primary"):
                line += (
                    f"; {fault.before_window} writes acknowledged over {o.fsync_interval:g} s before the kill all "
                    f"survived, {fault.in_window - fault.in_window_lost}/{fault.in_window} within it"
                )
            out.append(line)
        out.append(f"integrity: {self.integrity}")
        out.append(f"server log: {self.server_tracebacks} tracebacks")
        out += [f"ERROR {e}" for e in self.errors[:20]]
        out += [f"LOST {what}" for what in self.lost[:20]]
        if self.server_log:
            out.append(f"first traceback in the server log:\n{self.server_log}")
        out.append("PASS" if self.ok else "FAIL")
        return out
