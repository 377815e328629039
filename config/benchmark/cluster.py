"""``benchmark --cluster``: the same Redis operations on one server and on a 3-primary cluster.

Each app's records are loaded twice, through the same stores: into a scratch
single server, then into a scratch loopback cluster of 3 primaries with a
replica each (``config.cluster``). Every operation must answer on the cluster
exactly as on the one server before anything is timed. The report sets side by
side, per operation: the median, the round trips (on the cluster: the waves
waited for one after another, and the nodes they reached), and, for the writes
that spread over the cluster (``Part.spread_writes``: reviews of many products,
sensor samples of many locations), the writes per second that 1 and several
client threads get from each. The two servers run one after the other, not
interleaved: the cluster's processes share the machine's cores with the
clients, which the report says beside the figures.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.test.utils import override_settings

from config import trace
from config.benchmark import redisrun
from config.benchmark.registry import Load
from config.benchmark.runner import Mismatch, Timing, interleaved, same
from config.benchmark.suite import BUDGETS, clients_pointed_at, operation_order, parts, scratch_database, scratch_redis
from config.cluster import LocalCluster
from config.embedded import EmbeddedRedis
from config.redis import client, on_cluster

THREADS = (1, 4)  # client threads for the writes that spread
WHERE = ("single", "cluster")


@contextmanager
def scratch_cluster(directory: Path):
    """A loopback cluster of our own, with every client pointed at it."""
    cluster = LocalCluster(primaries=3, replicas=1, data_dir=directory / "cluster").start()
    try:
        with clients_pointed_at(cluster.url):
            yield cluster
    finally:
        cluster.stop()


def _summed(section: str, field_name: str) -> float:
    """An INFO field summed over the primaries."""
    replies = client().info(section, target_nodes="primaries")
    return sum(float(info.get(field_name, 0)) for info in replies.values())


def _calls_per_primary(names: tuple[str, ...] | None = None) -> dict[str, int]:
    """Commands each primary has served (INFO commandstats), by address; only ``names`` when given,
    else all but its replica's acknowledgements (REPLCONF, once a second whatever the load)."""
    replies = client().info("commandstats", target_nodes="primaries")
    return {
        node: sum(
            int(stats["calls"])
            for name, stats in info.items()
            if (name in names if names else name != "cmdstat_replconf")
        )
        for node, info in sorted(replies.items())
    }


def _commands_served() -> int:
    return sum(_calls_per_primary().values())


def _scripts_per_primary() -> dict[str, int]:
    """Script calls (EVALSHA and EVAL) each primary has served: where the writes went."""
    return _calls_per_primary(("cmdstat_evalsha", "cmdstat_eval"))


class ClusterRun(redisrun.RedisRun):
    """``RedisRun`` on the cluster: loads timed with their memory and commands summed over the primaries."""

    def timed(self, app: str, records: int, write) -> Load:
        before, commands = self.used_memory(), _commands_served()
        started = time.perf_counter()
        write()
        seconds = time.perf_counter() - started
        return Load(app, records, seconds, self.used_memory() - before, commands=_commands_served() - commands)

    @staticmethod
    def used_memory() -> int:
        """Summed over the primaries; a probe's single server (``other_database``) as ``RedisRun`` reads it."""
        return int(_summed("memory", "used_memory")) if on_cluster() else redisrun.used_memory()

    @staticmethod
    def flush() -> None:
        client().flushdb(target_nodes="primaries")

    @contextmanager
    def other_database(self):
        """A memory probe runs on a single server of its own: a cluster has only database 0."""
        with tempfile.TemporaryDirectory(prefix="rdash-probe-") as folder:
            server = EmbeddedRedis(Path(folder) / "redis")
            server.ensure_running()
            try:
                with override_settings(REDIS_URL=server.url):
                    yield
            finally:
                server.stop()


@dataclass
class Measured:
    """One operation on one side of the comparison."""

    timing: Timing
    round_trips: int  # waves waited for, one after another
    nodes: int  # distinct nodes reached (1 on one server)
    commands: int


@dataclass
class Phase:
    where: str
    loads: list[Load] = field(default_factory=list)
    floor: Timing | None = None
    measured: dict[str, Measured] = field(default_factory=dict)  # operation key -> its figures
    answers: dict[str, Any] = field(default_factory=dict)
    spread: dict[str, dict[int, float]] = field(default_factory=dict)  # write -> threads -> writes/s
    shares: dict[str, list[float]] = field(default_factory=dict)  # write -> each primary's share of its scripts
    capacity: dict[str, float] = field(default_factory=dict)  # write -> writes per CPU second of the busiest server


@dataclass
class ClusterOutcome:
    scale: str
    names: dict[str, str] = field(default_factory=dict)  # operation key -> name
    phases: dict[str, Phase] = field(default_factory=dict)


@dataclass(frozen=True)
class Driven:
    """Writes done by the threads of one run, and the seconds they took."""

    count: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0


def drive_writes(write: Callable[[int], Any], threads: int, seconds: float) -> Driven:
    """``write(n)`` from ``threads`` threads for ``seconds``, each with run numbers of its own."""
    done = [0] * threads
    stop = threading.Event()
    errors: list[BaseException] = []

    def drive(index: int) -> None:
        n = index
        try:
            while not stop.is_set():
                write(n)
                done[index] += 1
                n += threads
        except BaseException as error:  # reported after the run, not swallowed in the thread
            errors.append(error)

    workers = [threading.Thread(target=drive, args=(i,), daemon=True) for i in range(threads)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join(60)
    if errors:
        raise errors[0]
    return Driven(sum(done), time.perf_counter() - started)


def _cpu_per_server() -> dict[str, float]:
    """CPU seconds (user and system) each Redis process has used: every primary of a cluster, by
    address, or the one server."""
    if not on_cluster():
        return {"one server": redisrun.cpu_seconds()}
    return {node: redisrun.cpu_of(cpu) for node, cpu in client().info("cpu", target_nodes="primaries").items()}


def _measure(op, runs: int, min_runs: int, budget: float) -> tuple[Any, Measured]:
    with trace.recording() as recorded:
        answer = op.redis(0)
    trips = recorded.trips("data")
    timing = interleaved({"redis": op.redis}, runs, min_runs, budget)["redis"]
    nodes = len({t.node for t in trips}) or 1
    return answer, Measured(timing, recorded.wave_count("data"), nodes, recorded.command_count("data"))


def cluster_benchmark(scale: str, progress=lambda text: None, only=(), spread_seconds: float = 3.0) -> ClusterOutcome:
    """Load and ask every part on one server, then on a cluster; every cluster answer must equal the single
    server's (``Mismatch`` otherwise)."""
    budget = BUDGETS[scale]
    chosen = parts(scale, only)
    outcome = ClusterOutcome(scale)
    for where in WHERE:
        progress(f"generating the {scale} records of {', '.join(p.app for p in chosen)}")
        for p in chosen:
            p.generate()
        phase = outcome.phases.setdefault(where, Phase(where))
        with tempfile.TemporaryDirectory(prefix=f"rdash-bench-{where}-") as folder:
            scratch = scratch_cluster if where == "cluster" else scratch_redis
            with scratch(Path(folder)) as server, scratch_database():
                run = ClusterRun(server) if where == "cluster" else redisrun.RedisRun(server)
                progress(f"{where}: loading through the apps' stores")
                phase.loads = [load for p in chosen for load in p.load_redis(run)]
                one_node = {"target_nodes": "random"} if where == "cluster" else {}  # not PING to every node
                pings = {"redis": lambda n, one_node=one_node: client().ping(**one_node)}
                phase.floor = interleaved(pings, budget.floor_runs, budget.floor_runs, 0)["redis"]
                for op in sorted((op for p in chosen for op in p.operations(budget.runs)), key=operation_order):
                    outcome.names[op.key] = op.name
                    answer, phase.measured[op.key] = _measure(op, budget.runs, budget.min_runs, budget.seconds)
                    phase.answers[op.key] = answer
                    progress(f"{where}: timed {op.key}: {op.name}")
                for p in chosen:
                    for name, write in p.spread_writes():
                        before = _scripts_per_primary() if where == "cluster" else {}
                        cpu = _cpu_per_server()
                        driven = {t: drive_writes(write, t, spread_seconds) for t in THREADS}
                        busiest = max(n - cpu.get(server, 0.0) for server, n in _cpu_per_server().items())
                        phase.capacity[name] = sum(d.count for d in driven.values()) / busiest if busiest else 0.0
                        phase.spread[name] = {t: d.rate for t, d in driven.items()}
                        if before:
                            served = [n - before.get(node, 0) for node, n in _scripts_per_primary().items()]
                            phase.shares[name] = [n / max(1, sum(served)) for n in served]
                        progress(f"{where}: {name}: {phase.spread[name]}")
    single, cluster = outcome.phases["single"], outcome.phases["cluster"]
    for key, answer in single.answers.items():
        if not same(answer, cluster.answers.get(key)):
            raise Mismatch(
                f"operation {key} ({outcome.names[key]}) differs:\n  one server: {answer!r}\n"
                f"  cluster: {cluster.answers.get(key)!r}"
            )
    return outcome


def _ms(value: float) -> str:
    return f"{value:,.3f}" if value < 10 else f"{value:,.1f}"


def text(outcome: ClusterOutcome) -> list[str]:
    single, cluster = outcome.phases["single"], outcome.phases["cluster"]
    out = [
        f"Redis Cluster against one server at scale {outcome.scale!r} ({os.cpu_count()} cores: the cluster's "
        "6 processes and the clients share them). Every operation answered alike on both.",
        "",
        f"Floors: PING {_ms(single.floor.median_ms)} ms on one server, {_ms(cluster.floor.median_ms)} ms on the "
        "cluster.",
        "",
        "| # | operation | one server ms | cluster ms | cluster / one server | round trips | cluster: waves, nodes |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, name in outcome.names.items():
        a, b = single.measured[key], cluster.measured[key]
        ratio = b.timing.median_ms / a.timing.median_ms if a.timing.median_ms else 0.0
        out.append(
            f"| {key} | {name} | {_ms(a.timing.median_ms)} | {_ms(b.timing.median_ms)} | {ratio:.2f}× | "
            f"{a.round_trips} | {b.round_trips}, {b.nodes} |"
        )
    if single.spread:
        out += ["", "Writes that spread over the cluster (writes per second):", ""]
        out.append("| write | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}: one server, cluster" for t in THREADS)
                   + " | share of its scripts per primary | writes per CPU second of the busiest Redis: one "
                   "server, cluster (the cluster's growth with a core per Redis process) |")  # fmt: skip
        out.append("|---|" + "---|" * (len(THREADS) + 2))
        for name, rates in single.spread.items():
            cells = [f"{rates[t]:,.0f}, {cluster.spread[name][t]:,.0f}" for t in THREADS]
            cells.append(" / ".join(f"{share:.0%}" for share in cluster.shares.get(name, [])))
            one, many = single.capacity.get(name, 0), cluster.capacity.get(name, 0)
            cells.append(f"{one:,.0f}, {many:,.0f}" + (f" ({many / one:.2f}×)" if one else ""))
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out += [
            "",
            "The share per primary is what a cluster spreads: a write whose keys share one slot runs on one "
            "primary whatever the number of primaries; one spread over the slots divides among them, so its "
            "throughput can grow with them where each primary has a core of its own (not on this machine "
            "when it has fewer cores than the cluster has processes). The writes per CPU second of the "
            "busiest Redis process (INFO cpu over the runs: all the writes over that one process's CPU "
            "time) are what the servers could take with a core each, the busiest being the first to run "
            "out: their ratio is how the cluster's throughput would grow over the one server's. A cluster "
            "primary also pays for its replica's stream and the cluster bus, which the one server (no "
            "replica) does not, and CPU seconds swell when processes share cores.",
        ]
    out += ["", "Loads:", "", "| data | one server s | cluster s |", "|---|---|---|"]
    for a, b in zip(single.loads, cluster.loads):
        out.append(f"| {a.app} | {a.seconds:.2f} | {b.seconds:.2f} |")
    medians = [cluster.measured[k].timing.median_ms / single.measured[k].timing.median_ms for k in outcome.names
               if single.measured[k].timing.median_ms]  # fmt: skip
    if medians:
        out += ["", f"median of cluster / one server over the operations: {statistics.median(medians):.2f}×"]
    return out
