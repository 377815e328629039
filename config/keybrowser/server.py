"""The server's own view, prepared for its template: INFO by section, the slow log with each key it
names tied to its registered pattern and screens, the command stats, LATENCY DOCTOR. No Redis here
(``serverstore.server_view`` reads it), no markup: every value is text the template escapes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.urls import NoReverseMatch, reverse

from config.keybrowser import display
from config.keybrowser.store import server as serverstore
from config.keyspace import KeyPattern, keyspace

# The fields shown of each INFO section (the page links nothing else); commandstats is shown whole.
FIELDS = {
    "server": ("redis_version", "redis_mode", "os", "process_id", "tcp_port", "uptime_in_seconds", "hz"),
    "memory": (
        "used_memory_human", "used_memory_dataset", "used_memory_dataset_perc", "used_memory_peak_human",
        "maxmemory_human", "maxmemory_policy", "mem_fragmentation_ratio", "mem_allocator",
    ),
    "persistence": (
        "loading", "rdb_changes_since_last_save", "rdb_last_save_time", "rdb_last_bgsave_status",
        "aof_enabled", "aof_last_write_status",
    ),
    "replication": (
        "role", "connected_slaves", "master_host", "master_port", "master_link_status", "master_repl_offset",
    ),
    "clients": ("connected_clients", "blocked_clients", "maxclients", "client_recent_max_output_buffer"),
    "stats": (
        "total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec", "rejected_connections",
        "expired_keys", "evicted_keys", "keyspace_hits", "keyspace_misses", "latest_fork_usec",
    ),
}  # fmt: skip


@dataclass(frozen=True)
class Argument:
    text: display.Shown
    pattern: KeyPattern | None = None
    key_url: str = ""  # the key browser's page of the key
    screen_url: str = ""  # the app's page of the document the key holds
    screens: tuple[tuple[str, str], ...] = ()  # (URL name, path or "") of the screens reading the pattern


@dataclass(frozen=True)
class SlowEntry:
    id: int
    at: datetime
    micros: int
    args: list[Argument]
    client: str
    client_name: str
    keys: list[Argument]  # the arguments a registered pattern owns, each once


def screens(names) -> tuple[tuple[str, str], ...]:
    """(URL name, path) of each screen that reads or writes a pattern; path "" when it takes arguments."""
    found = []
    for name in names:
        try:
            found.append((name, reverse(name)))
        except NoReverseMatch:
            found.append((name, ""))
    return tuple(found)


def argument(value: bytes, first: bool) -> Argument:
    """One argument of a slow command, named as a key where a registered pattern owns it."""
    shown = display.show(value, limit=display.NAME_SHOWN, name=True)
    if first:
        return Argument(shown)
    text = value.decode("utf-8", "replace")
    pattern = keyspace.match(text) if ":" in text else None
    if pattern is None or display.is_hidden(value):
        return Argument(shown)
    return Argument(
        shown,
        pattern,
        display.key_url(value),
        pattern.screen_url(text),
        screens(pattern.screens),
    )


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value or "")


def slow_entries(raw: list) -> list[SlowEntry]:
    entries = []
    for item in raw:
        ident, when, micros, args = item[:4]
        shown = [argument(arg, n == 0) for n, arg in enumerate(args)]
        keys = list({arg.text.text: arg for arg in shown if arg.pattern}.values())
        entries.append(
            SlowEntry(
                int(ident),
                datetime.fromtimestamp(int(when), UTC),
                int(micros),
                shown,
                _text(item[4]) if len(item) > 4 else "",
                _text(item[5]) if len(item) > 5 else "",
                keys,
            )
        )
    return entries


def sections(info: dict) -> list[tuple[str, list[tuple[str, str]]]]:
    return [
        (section, [(name, str(info[section][name])) for name in names if name in info[section]])
        for section, names in FIELDS.items()
    ]


def command_stats(stats: dict) -> list[dict]:
    """INFO commandstats as rows, the most time spent first."""
    rows = [
        {"command": name.removeprefix("cmdstat_"), **{k: values.get(k, "") for k in ("calls", "usec", "usec_per_call")}}
        for name, values in stats.items()
        if isinstance(values, dict)
    ]
    return sorted(rows, key=lambda row: -float(row["usec"] or 0))


def nodes() -> list[dict]:
    """Every node's view, in one round trip."""
    return [
        {
            "name": node.name,
            "policy": node.info["memory"].get("maxmemory_policy", ""),
            "sections": sections(node.info),
            "slowlog": slow_entries(node.slowlog),
            "commandstats": command_stats(node.info["commandstats"]),
            "latency": node.latency,
        }
        for node in serverstore.server_view()
    ]
