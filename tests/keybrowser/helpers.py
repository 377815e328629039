"""Shared pieces of the key browser tests."""

from __future__ import annotations

import re
from contextlib import contextmanager
from html import unescape

from config import keys
from config.keyspace import keyspace
from config.redis import on_cluster, raw_client
from tests.base import RedisTestCase

READ_ONLY = {
    "SCAN", "EVAL", "TYPE", "PTTL", "OBJECT ENCODING", "MEMORY USAGE", "DBSIZE", "HSCAN", "SSCAN", "ZRANGE",
    "LRANGE", "XRANGE", "XREVRANGE", "GETRANGE", "ZCARD", "SCARD",
}  # fmt: skip


@contextmanager
def extra_patterns():
    """Register test patterns inside the block; the registry is restored after, as it was."""
    patterns, prefixes = list(keyspace.patterns), dict(keyspace.prefixes)
    try:
        yield keyspace
    finally:
        keyspace.patterns[:] = patterns
        keyspace.prefixes.clear()
        keyspace.prefixes.update(prefixes)


def commands(trace, origin: str | None = "data") -> list[str]:
    return [c.name for t in trace.trips(origin) for c in t.commands]


def load_keys(count: int, name: str = "bulk:item:{}", batch: int = 10_000) -> None:
    """``count`` small string keys, pipelined."""
    client = raw_client()
    for start in range(0, count, batch):
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(start + batch, count)):
            pipe.set(name.format(i), b"x")
        pipe.execute()


@contextmanager
def scans_logged():
    """Every command the servers run inside the block logged (SLOWLOG, a script's own commands too);
    yields what gives, server by server, the slots its SCAN steps asked for in all (their COUNTs)."""
    servers = [node.redis_connection for node in raw_client().primaries()] if on_cluster() else [raw_client()]
    settings = [server.config_get("slowlog-*") for server in servers]
    for server in servers:
        server.config_set("slowlog-max-len", 10_000)
        server.config_set("slowlog-log-slower-than", 0)
        server.slowlog_reset()

    def asked() -> list[int]:
        totals = []
        for server in servers:
            scans = [e["command"].split() for e in server.slowlog_get(10_000) if e["command"].startswith(b"SCAN ")]
            totals.append(sum(int(words[words.index(b"COUNT") + 1]) for words in scans))
        return totals

    try:
        yield asked
    finally:
        for server, held in zip(servers, settings):
            for name, value in held.items():
                server.config_set(name, value)
            server.slowlog_reset()


class KeysTestCase(RedisTestCase):
    """A signed-in test whose Redis holds only the session and what the test writes."""

    def setUp(self):
        super().setUp()
        raw_client().delete(keys.signins_recent(), keys.signins_count())  # written by the sign-in itself


def panel_commands(html: str) -> str:
    """The command list a page's Redis panel loads when opened, built from the token in its ``hx-get``."""
    from config.keybrowser import behind, panel

    token = unescape(re.search(r'hx-get="/keys/behind/commands/\?t=([^"]+)"', html).group(1))
    return panel.commands_html(behind.read(token))


@contextmanager
def scripts_logged():
    """Every command the server runs inside the block logged (SLOWLOG, a script's own commands too);
    yields what gives, for each key browser script that scanned, in order, its first line and the COUNTs
    of the SCAN steps it took: the slots one command asked for, which bound the keys it visited."""
    server = raw_client()
    held = server.config_get("slowlog-*")
    server.config_set("slowlog-max-len", 10_000)
    server.config_set("slowlog-log-slower-than", 0)
    server.slowlog_reset()

    def scripts() -> list[tuple[str, list[int]]]:
        found, counts = [], []
        for entry in sorted(server.slowlog_get(10_000), key=lambda e: e["id"]):
            words = entry["command"].split()
            if words[0] == b"SCAN":
                counts.append(int(words[words.index(b"COUNT") + 1]))
            elif words[0] in (b"EVAL", b"EVALSHA"):
                first = entry["command"].split(b"\n", 1)[0].decode("utf-8", "replace")
                if "key browser" in first and counts:
                    found.append((first, counts))
                counts = []
        return found

    try:
        yield scripts
    finally:
        for name, value in held.items():
            server.config_set(name, value)
        server.slowlog_reset()
