"""How fast the loads feed Redis, beside what the same server can take.

A load's rate is the commands the server ran for it (INFO commandstats) per
second of the load. The ceiling is ``redis-benchmark -P 32`` against the same
scratch server in the same run (writes of the kinds the loads send: SET,
HSET, SADD, ZADD, on a database of its own, flushed afterwards). The binary
is Debian's ``redis-tools``; without it the ceiling is left out.

redis-benchmark's writes carry 3-byte values; a load whose commands carry
kilobytes (a CMS post's revisions) meets a server that takes far fewer of them
per second. So each load also gets a ceiling at its own size: redis-benchmark
-P 32 with ``-d`` set so that its SET and HSET send as many bytes per command
as the load did (INFO stats total_net_input_bytes over its commands); its SADD
and ZADD stay small, so this ceiling errs high, and a load's share of it low.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from dataclasses import dataclass, field

from django.test.utils import override_settings

from config.benchmark.redisrun import settled
from config.redis import client

TESTS = "set,hset,sadd,zadd"
SET_OVERHEAD = len(b"*3\r\n$3\r\nSET\r\n$16\r\nkey:000000012345\r\n$3\r\n\r\n")  # a SET's bytes besides its value
SIZED_BYTES = 200_000_000  # what one sized run may send at most
DATABASE = 3
INSTALL_HINT = "redis-benchmark not found (Debian: apt-get install redis-tools)"


@dataclass
class Ceiling:
    commands_per_second: float  # the best run's
    command: str
    note: str = ""
    data_size: int = 0  # redis-benchmark's -d, when set
    rates: list[float] = field(default_factory=list)  # each run's, in order


def value_size(bytes_per_command: float) -> int:
    """redis-benchmark's ``-d`` for a SET as large on the wire as a load's mean command."""
    return max(3, round(bytes_per_command) - SET_OVERHEAD)


def redis_benchmark(server, requests: int, data_size: int = 0, runs: int = 1) -> Ceiling:
    """``redis-benchmark -P 32`` on the scratch server's socket, ``runs`` times: the best run's mean of
    its write tests' rates. With ``data_size``, its SET and HSET carry values of that many bytes (with
    fewer requests when they are large, so that one run stays within ``SIZED_BYTES``).

    A ceiling is what the server can take, so the best run is kept: one run alone moved by half from
    one benchmark to the next (the CMS's size took 166,274 commands/s in one, 328,174 in another),
    and a load's share of a low ceiling reads high."""
    exe = shutil.which("redis-benchmark")
    sized = ["-d", str(data_size)] if data_size else []
    if data_size:
        requests = max(10_000, min(requests, SIZED_BYTES // data_size))
    shown = f"redis-benchmark -P 32 -n {requests} -r 100000 -t {' '.join([TESTS, *sized])} --csv"
    if exe is None:
        return Ceiling(0.0, shown, INSTALL_HINT, data_size)
    command = [exe, "-s", str(server.socket), "--dbnum", str(DATABASE), "-P", "32", "-n", str(requests),
               "-r", "100000", "-t", TESTS, *sized, "--csv"]  # fmt: skip
    means = []
    for _ in range(runs):
        settled()  # not beside a rewrite an earlier load or run set off
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        with override_settings(REDIS_URL=f"{server.url}?db={DATABASE}"):
            client().flushdb()
        rates = [float(row[1]) for row in csv.reader(io.StringIO(done.stdout)) if len(row) > 1 and row[0] != "test"]
        if done.returncode or not rates:
            return Ceiling(0.0, shown, f"redis-benchmark failed: {done.stderr.strip()[:200]}", data_size)
        means.append(sum(rates) / len(rates))
    return Ceiling(max(means), shown, data_size=data_size, rates=means)
