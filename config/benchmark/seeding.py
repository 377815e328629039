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

Neither runs the load's own commands: a 1,000-member SADD or a script of a
batch's writes counts as one command (a load's rate counts the commands its
client sent, never a script's own calls), and takes the server far longer
than a SET of as many bytes. So each load also gets the ceiling of its own commands
(``replayed``): the very bytes it sent (``redisrun.captured``), fed by
``redis-cli --pipe`` (Redis's mass-insertion client, in C, as deep a pipeline
as the socket takes) to a fresh server of the same build and settings. What
that server runs per second is what Redis takes of these commands; the load's
share of it is how much of that its client gets. Each replay runs right after
its load, before the next load, so the two meet the machine alike.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.test.utils import override_settings

from config.benchmark import placement
from config.benchmark.redisrun import commands_served, settled
from config.embedded import EmbeddedRedis
from config.redis import client

TESTS = "set,hset,sadd,zadd"
SET_OVERHEAD = len(b"*3\r\n$3\r\nSET\r\n$16\r\nkey:000000012345\r\n$3\r\n\r\n")  # a SET's bytes besides its value
SIZED_BYTES = 200_000_000  # what one sized run may send at most
DATABASE = 3
INSTALL_HINT = "redis-benchmark not found (Debian: apt-get install redis-tools)"
CLI_HINT = "redis-cli not found (Debian: apt-get install redis-tools)"
EMPTY_RUNS = 3  # replays of nothing: what redis-cli's start and its closing ECHO cost
# A new connection's CLIENT SETINFO (redis-py's handshake), which the embedded Redis 6.2 does not know: the
# load's server answered it with the same error, and redis-py goes on.
HANDSHAKE_ERROR = "'SETINFO'"
# A script's first call on a server without it, which the load's server (its scripts flushed) answered
# alike: the client then loads it and calls it again.
NOSCRIPT_ERROR = "NOSCRIPT"
_STATUS = ("All data transferred", "Last reply received", "errors: ")


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
        requests = max(1_000, min(requests, SIZED_BYTES // data_size))
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


@dataclass
class Replay:
    """A load's own bytes fed by ``redis-cli --pipe`` to a fresh server: the commands the load sent
    (a script one, as the load's rate counts them) over the seconds the replay took, less an empty
    replay's; and the commands that server ran (INFO commandstats), to check it ran the load's."""

    commands: int = 0  # the replay's server ran, a script's own calls too: the load's server ran as many
    seconds: float = 0.0
    errors: int = 0  # error replies but the handshake's and NOSCRIPT's: none when the load replays as it ran
    note: str = ""
    sent: int | None = None  # the commands the load's client sent, when known

    @property
    def commands_per_second(self) -> float:
        """The commands sent (else those run) per second of the replay."""
        counted = self.commands if self.sent is None else self.sent
        return counted / self.seconds if self.seconds > 0 and not self.note else 0.0


def _pipe(exe: str, server: EmbeddedRedis, source) -> tuple[float, int, str]:
    """``redis-cli --pipe`` with ``source`` as its input: (seconds, commands the server ran, its output).
    The commands count the first INFO reading, as an empty replay's do: taking those off cancels it."""
    redis = server.client()
    before = commands_served(redis)
    started = time.perf_counter()
    done = subprocess.run([exe, "-s", str(server.socket), "--pipe"], stdin=source, capture_output=True,
                          text=True, timeout=3600)  # fmt: skip
    seconds = time.perf_counter() - started
    return seconds, commands_served(redis) - before, done.stdout + done.stderr


def can_replay() -> bool:
    """Whether ``redis-cli`` is here to replay a load's bytes (else they are not kept)."""
    return shutil.which("redis-cli") is not None


def replayed(capture: Path | None, servers: frozenset[int] | None = None, sent: int | None = None) -> Replay:
    """The load's bytes (``capture``) replayed on a fresh server of the same build and settings (pinned
    to ``servers``, as the scratch server is), by ``redis-cli --pipe`` on this process's CPU. An empty
    replay's seconds and commands (redis-cli's start, its closing ECHO) are taken off, the least of
    ``EMPTY_RUNS``; a replay that took less than that again is not timed (a note says so: a tiny
    load's rate would be noise, or less than nothing). The server is stopped and its folder removed
    afterwards. ``sent``: the commands the load's client sent, the replay's rate counted in them. No
    capture (no ``redis-cli`` when the load ran) or no ``redis-cli``: a note saying how to install it."""
    exe = shutil.which("redis-cli")
    if exe is None or capture is None:
        return Replay(note=CLI_HINT)
    with tempfile.TemporaryDirectory(prefix="rdash-replay-") as folder:
        server = EmbeddedRedis(Path(folder) / "redis")
        server.ensure_running()
        try:
            placement.pin_server(server.pid(), servers)
            empty = [_pipe(exe, server, subprocess.DEVNULL) for _ in range(EMPTY_RUNS)]
            idle_seconds, idle_commands = min(run[0] for run in empty), min(run[1] for run in empty)
            with open(capture, "rb") as source:
                seconds, commands, output = _pipe(exe, server, source)
        finally:
            server.stop()
    if re.search(r"errors: \d+, replies: \d+", output) is None:
        return Replay(note=f"redis-cli --pipe failed: {output.strip()[:200]}")
    errors = [line for line in output.splitlines() if line and not line.startswith(_STATUS)]
    unexpected = [line for line in errors if HANDSHAKE_ERROR not in line and NOSCRIPT_ERROR not in line]
    commands, seconds = commands - idle_commands, seconds - idle_seconds
    if seconds < idle_seconds:  # within what redis-cli's start alone varies by, on a busy machine too
        note = f"too short to time: {commands:,} commands, beside redis-cli's start of {idle_seconds * 1000:.1f} ms"
        return Replay(commands, max(seconds, 0.0), len(unexpected), note, sent)
    return Replay(commands, seconds, len(unexpected), sent=sent)
