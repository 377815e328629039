"""How fast the loads feed Redis, beside what the same server can take.

A load's rate is the commands the server ran for it (INFO commandstats) per
second of the load. The ceiling is ``redis-benchmark -P 32`` against the same
scratch server in the same run (writes of the kinds the loads send: SET,
HSET, SADD, ZADD, on a database of its own, flushed afterwards). The binary
is Debian's ``redis-tools``; without it the ceiling is left out.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from dataclasses import dataclass

from django.test.utils import override_settings

from config.redis import client

TESTS = "set,hset,sadd,zadd"
DATABASE = 3
INSTALL_HINT = "redis-benchmark not found (Debian: apt-get install redis-tools)"


@dataclass
class Ceiling:
    commands_per_second: float
    command: str
    note: str = ""


def redis_benchmark(server, requests: int) -> Ceiling:
    """``redis-benchmark -P 32`` on the scratch server's socket: the mean of its write tests' rates."""
    exe = shutil.which("redis-benchmark")
    shown = f"redis-benchmark -P 32 -n {requests} -r 100000 -t {TESTS} --csv"
    if exe is None:
        return Ceiling(0.0, shown, INSTALL_HINT)
    command = [exe, "-s", str(server.socket), "--dbnum", str(DATABASE), "-P", "32", "-n", str(requests),
               "-r", "100000", "-t", TESTS, "--csv"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    with override_settings(REDIS_URL=f"{server.url}?db={DATABASE}"):
        client().flushdb()
    rates = [float(row[1]) for row in csv.reader(io.StringIO(done.stdout)) if len(row) > 1 and row[0] != "test"]
    if done.returncode or not rates:
        return Ceiling(0.0, shown, f"redis-benchmark failed: {done.stderr.strip()[:200]}")
    return Ceiling(sum(rates) / len(rates), shown)
