"""Server-side counters for the scale check: commands the server ran (INFO commandstats, which
counts the commands a script runs too) and the longest commands (SLOWLOG)."""

from __future__ import annotations

from config.redis import client, on_cluster


def commands_run() -> int:
    """Every command the server has run since its start (or CONFIG RESETSTAT), inside scripts too, but
    INFO (this count's own reading) and REPLCONF (a replica's acknowledgement, sent every second
    whatever the clients do); on a cluster, every primary's."""
    stats = (
        client().info("commandstats", target_nodes="primaries").values()
        if on_cluster()
        else [client().info("commandstats")]
    )
    return sum(int(row["calls"]) for node in stats for name, row in node.items() if name not in _NOT_WORK)


_NOT_WORK = {"cmdstat_info", "cmdstat_replconf"}


THRESHOLD_US = 100


def slowlog_start() -> str:
    """Log every command over ``THRESHOLD_US`` from now on, starting from an empty log; returns the
    threshold it replaced, for ``slowlog_longest`` to put back. (A threshold of 0 would log every
    command a script runs as well, and the logging itself would lengthen the script.)"""
    before = client().config_get("slowlog-log-slower-than")["slowlog-log-slower-than"]
    client().config_set("slowlog-log-slower-than", THRESHOLD_US)
    client().config_set("slowlog-max-len", 10000)
    client().slowlog_reset()
    return before


def slowlog_longest(restore: str) -> tuple[int, str, int]:
    """The longest command logged since ``slowlog_start`` (microseconds, and its name), and the median
    of those logged; zeros when none took over ``THRESHOLD_US``. On a busy machine the longest
    includes time the server spent descheduled; the median shows the usual call."""
    entries = client().slowlog_get(10000)
    if isinstance(entries, dict):  # a cluster's, node by node
        entries = [entry for node in entries.values() for entry in node]
    client().config_set("slowlog-log-slower-than", restore)
    longest, name, durations = 0, "", []
    for entry in entries:
        command = entry["command"]
        command = command.decode(errors="replace") if isinstance(command, bytes) else str(command)
        word = command.split()[0].upper() if command else ""
        if word in _MEASURING:
            continue
        durations.append(int(entry["duration"]))
        if entry["duration"] > longest:
            longest, name = int(entry["duration"]), word
    return longest, name, sorted(durations)[len(durations) // 2] if durations else 0


_MEASURING = {"INFO", "CONFIG", "SLOWLOG"}  # the measurement's own commands
