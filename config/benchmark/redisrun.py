"""The scratch Redis as the benchmark's parts see it: timed loads, memory, commands, SLOWLOG.

Every figure comes from the server itself: INFO used_memory for what records
cost, INFO commandstats for the commands a load sent (its rate beside what
``redis-benchmark`` shows the same server can take) and SLOWLOG for the
longest single command or script of an operation.
"""

from __future__ import annotations

import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

from django.test.utils import override_settings
from redis.connection import AbstractConnection

from config import trace
from config.benchmark.registry import Load
from config.redis import client, is_dev_server

INFO_STATS_BYTES = len(b"*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n")
SLOW_US = 100  # SLOWLOG threshold while an operation's longest command is measured


def used_memory() -> int:
    """INFO used_memory less what the client connections hold (CLIENT LIST ``tot-mem``: their
    query and reply buffers, some 50 KB a connection): what the data costs, whatever connections
    a load opens or how full their buffers are when it ends."""
    redis = client()
    connections = sum(int(entry.get("tot-mem", 0)) for entry in redis.client_list())
    return int(redis.info("memory")["used_memory"]) - connections


def commands_served(redis=None) -> int:
    """Every command the server has run since start (INFO commandstats, summed): the scratch server's,
    or that of the client ``redis`` (a replay's server)."""
    return sum(int(stats["calls"]) for stats in (redis or client()).info("commandstats").values())


def input_bytes() -> int:
    """Bytes the server has read from its clients since start (INFO stats total_net_input_bytes)."""
    return int(client().info("stats")["total_net_input_bytes"])


def cpu_seconds() -> float:
    """The server process's CPU time since start, user and system (INFO cpu)."""
    return cpu_of(client().info("cpu"))


def cpu_of(cpu: dict) -> float:
    """User and system CPU seconds of one server's INFO cpu."""
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def server_ms(names: frozenset[str] | None = None) -> float:
    """The server's own time running commands since start (INFO commandstats usec), INFO and CONFIG left
    out; only the commands ``names`` (lowercase) when given."""
    stats = client().info("commandstats")
    chosen = (name for name in stats if names is None or name.removeprefix("cmdstat_") in names)
    return sum(float(stats[name]["usec"]) for name in chosen if name not in {"cmdstat_info", "cmdstat_config"}) / 1000


SETTLE_SECONDS = 600.0  # the longest wait for a rewrite to end (a large data set's takes some seconds)
_PERSISTING = ("aof_rewrite_in_progress", "aof_rewrite_scheduled", "rdb_bgsave_in_progress")


def settled(timeout: float = SETTLE_SECONDS) -> float:
    """Wait until the server runs no append-only file rewrite or RDB save and has none scheduled (INFO
    persistence); the seconds waited. A load grows the file, and Redis rewrites it in a child process
    once it has doubled: at large scale that takes seconds, and the child shares the server's CPU. Each
    load and each redis-benchmark run starts once the rewrite an earlier one set off is over, so it
    measures its own work. Past ``timeout`` it goes on regardless."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        info = client().info("persistence")
        if not any(int(info.get(name, 0)) for name in _PERSISTING):
            break
        time.sleep(0.05)
    return time.perf_counter() - started


def rewritten(timeout: float = SETTLE_SECONDS) -> float:
    """``settled``, with the append-only file rewritten first if it has grown since its last rewrite
    (BGREWRITEAOF); the seconds waited. ``settled`` alone can return just before the server's cron
    (ten times a second) finds the file doubled by the loads and redis-benchmark's runs and starts a
    rewrite, which would then share the CPU with the timing that follows; rewritten now, the file
    has not grown when that timing starts. For what is timed after the loads: the floors, the
    operations, the pages."""
    started = time.perf_counter()
    settled(timeout)
    info = client().info("persistence")
    if int(info.get("aof_enabled", 0)) and int(info.get("aof_current_size", 0)) > int(info.get("aof_base_size", 0)):
        client().bgrewriteaof()
        time.sleep(0.05)  # the child starting: settled then sees it in progress
    settled(max(0.0, timeout - (time.perf_counter() - started)))
    return time.perf_counter() - started


def flush() -> None:
    """Empty the scratch server; refuses the development data, whatever points the client there."""
    if is_dev_server():
        raise RuntimeError("refusing to flush the development Redis")
    client().flushdb()


@contextmanager
def captured(packets: list):
    """Every packet this process's connections send meanwhile, appended to ``packets`` as it is sent
    (bytes, or a pipeline's list of them: kept, not copied). A load's own bytes, for its replay
    (``seeding.replayed``)."""
    send = AbstractConnection.send_packed_command

    def send_kept(self, command, check_health=True):
        packets.append(command)
        return send(self, command, check_health)

    AbstractConnection.send_packed_command = send_kept
    try:
        yield packets
    finally:
        AbstractConnection.send_packed_command = send


def write_packets(packets: list, path: Path) -> None:
    """The packets one after the other, as the server read them."""
    with open(path, "wb") as out:
        for packet in packets:
            if isinstance(packet, list | tuple):
                out.writelines(packet)
            else:
                out.write(packet)


class RedisRun:
    """Handed to each part's ``load_redis`` and ``extras``. With ``captures`` (a folder), each timed
    load's bytes are kept there and replayed at once by ``replay`` (``seeding.replayed``), before the
    next load: each load and its replay one after the other, on the machine as it is then."""

    def __init__(self, server, captures: Path | None = None, replay=None):
        self.server = server
        self.captures = captures
        self.replay = replay  # (capture, commands sent) -> its Replay
        self.captured = 0  # loads captured so far: each file's number

    def timed(self, app: str, records: int, write) -> Load:
        """``write()`` timed, with the memory it added, the commands the client sent for it (a script
        is one, whatever it runs inside), the commands the server ran, the bytes they came in and the
        server's CPU time meanwhile; it starts once no rewrite is running (``settled``).

        With ``captures``, the bytes it sent are kept, written to a file once it is timed and replayed
        (``replay``). The server forgets its scripts first, so the load loads each one it calls (after a
        NOSCRIPT) and the file replays on a server that has none."""
        packets: list = []
        if self.captures is not None:
            client().script_flush()
        settled()
        cpu, before, commands, received = cpu_seconds(), used_memory(), commands_served(), input_bytes()
        started = time.perf_counter()
        with trace.recording() as sent, ExitStack() as stack:
            if self.captures is not None:
                stack.enter_context(captured(packets))
            write()
        seconds = time.perf_counter() - started
        received = input_bytes() - received - INFO_STATS_BYTES  # the INFO between the two readings
        served = commands_served() - commands - 3  # the INFO calls between the two readings
        load = Load(app, records, seconds, used_memory() - before, commands=sent.command_count(),
                    server_commands=served, input_bytes=received)  # fmt: skip
        load.server_cpu_seconds = cpu_seconds() - cpu
        if self.captures is not None:
            self.captured += 1
            load.capture = self.captures / f"{self.captured}-{app}.resp"
            write_packets(packets, load.capture)
            if self.replay is not None:
                load.replay = self.replay(load.capture, load.commands)
                load.capture.unlink()
        return load

    used_memory = staticmethod(used_memory)
    flush = staticmethod(flush)

    @contextmanager
    def other_database(self):
        """Database 1 of the scratch server, for a memory probe; flushed when done."""
        with override_settings(REDIS_URL=f"{self.server.url}?db=1"):
            try:
                yield
            finally:
                client().flushdb()

    def longest_command(self, action):
        """Run ``action()``; returns (its result or the exception it raised, seconds, the longest command's
        ms and name from SLOWLOG, with the main thread's CPU time meanwhile). SLOWLOG keeps every command
        over ``SLOW_US`` meanwhile (a bounded log: a move of thousands of people sends more commands than
        it could keep were every one logged); none logged means none took that long."""
        redis = client()
        old = redis.config_get("slowlog-log-slower-than")["slowlog-log-slower-than"]
        old_len = redis.config_get("slowlog-max-len")["slowlog-max-len"]
        redis.config_set("slowlog-max-len", 10_000)
        redis.config_set("slowlog-log-slower-than", SLOW_US)
        redis.slowlog_reset()
        cpu_before = _main_thread_cpu(redis)
        started = time.perf_counter()
        try:
            outcome = action()
        except Exception as error:  # a refusal (Busy ...) is a result to report, not a crash of the run
            outcome = error
        seconds = time.perf_counter() - started
        busy = f"the server's main thread busy {(_main_thread_cpu(redis) - cpu_before) * 1000:.2f} ms in all"
        entries = redis.slowlog_get(10_000)
        redis.config_set("slowlog-log-slower-than", old)
        redis.config_set("slowlog-max-len", old_len)
        redis.slowlog_reset()
        named = [(e["duration"], _name(e["command"])) for e in entries]
        named = [(duration, name) for duration, name in named if name not in {"SLOWLOG", "CONFIG"}]  # our own
        if not named:
            return outcome, seconds, 0.0, f"none over {SLOW_US / 1000:g} ms; {busy}"
        duration, name = max(named)
        return outcome, seconds, duration / 1000, f"{name}; {busy}"


def _main_thread_cpu(redis) -> float:
    """CPU seconds of the server's main thread, where commands run (INFO cpu). SLOWLOG times a command
    by the wall clock, so a server the machine descheduled logs a long command that did little work:
    the two side by side tell them apart."""
    cpu = redis.info("cpu")
    nodes = [cpu] if "used_cpu_user_main_thread" in cpu else list(cpu.values())  # a cluster: per node
    return sum(float(node["used_cpu_user_main_thread"]) + float(node["used_cpu_sys_main_thread"]) for node in nodes)


def _name(command) -> str:
    command = command.decode("utf-8", "replace") if isinstance(command, bytes) else str(command)
    return command.split(" ", 1)[0].upper()
