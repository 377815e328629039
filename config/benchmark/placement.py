"""Where the benchmark's processes run: the client on one CPU, every scratch server on the others.

A round trip over a unix socket costs what waking the other side costs. When
the server runs on the client's CPU it is a context switch (some 10 µs here);
on another CPU, a wake-up across CPUs (some 45 µs on this virtual machine).
Left to the scheduler, each server lands on one or the other from run to run
and even from side to side: in one run PostgreSQL's ``SELECT 1`` took 0.035 ms
(on the client's CPU) while Redis's ``PING`` took 0.068 (across). So the
client is pinned to one CPU and the servers to the rest, as a database on a
host of its own would be: every side pays the same kind of round trip, in
every run. With one CPU there is nothing to place, and nothing is pinned.

Linux only (``os.sched_setaffinity``); elsewhere nothing is pinned either.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


def cpus() -> tuple[frozenset[int], frozenset[int]] | None:
    """(the client's CPU, the servers' CPUs) of those this process may use; None when they cannot be
    split (one CPU, or no affinity on this system)."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None
    return frozenset(allowed[:1]), frozenset(allowed[1:])


@contextmanager
def client_pinned() -> Iterator[frozenset[int] | None]:
    """This thread (and every thread it starts meanwhile: they inherit it) on the client's CPU; the
    servers' CPUs are yielded for ``pin_server``, None when nothing is placed. The affinity is restored
    on exit."""
    split = cpus()
    if split is None:
        yield None
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, split[0])
    try:
        yield split[1]
    finally:
        os.sched_setaffinity(0, before)


def pin_server(pid: int | None, servers: frozenset[int] | None) -> int:
    """Every thread of process ``pid`` and of its child processes on ``servers``: a Redis server's
    background threads, a PostgreSQL postmaster's workers (the backends it forks later inherit it).
    Returns the threads pinned; a process gone meanwhile is skipped."""
    if pid is None or servers is None:
        return 0
    pinned = 0
    for process in [pid, *descendants(pid)]:
        for task in _tasks(process):
            with suppress(ProcessLookupError, PermissionError):
                os.sched_setaffinity(task, servers)
                pinned += 1
    return pinned


def _tasks(pid: int) -> list[int]:
    with suppress(FileNotFoundError):
        return [int(entry.name) for entry in Path(f"/proc/{pid}/task").iterdir()]
    return []


def descendants(pid: int) -> list[int]:
    """The processes below ``pid``, from ``/proc/<pid>/stat`` of every process (its fourth field); the
    deploy tests use it too, for what a stopped server leaves behind."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])  # after the command, which may hold spaces
            children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:  # a pid reused while /proc was read cannot send the walk round in a loop
                found.append(child)
                stack.append(child)
    return found
