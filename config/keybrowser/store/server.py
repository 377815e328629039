"""The key browser's reads of the server itself, with the rules of ``store.py``: the memory walk's
slices (``/keys/memory/``) and the server's own view (``/keys/server/``)."""

from __future__ import annotations

from dataclasses import dataclass

from config.keybrowser.display import hidden_prefixes
from config.keybrowser.store import SCAN_COUNT, SCAN_EXAMINED, SCAN_PAGE, KeyMeta, describe
from config.redis import on_cluster, raw_client
from config.store.scripts import run_script, script_command

# The memory walk (``/keys/memory/``): the list's SCAN and description scripts, a slice at a time, so
# no one command visits more than SCAN_EXAMINED slots nor describes more than about MEMORY_SLICE keys.
# A primary's walk stops after MEMORY_WALK keys: past that, ``memory`` estimates from the keys described.
MEMORY_SLICE = 100
MEMORY_WALK = 20_000


@dataclass(frozen=True)
class NodeMemory:
    name: str  # host:port of the primary ("" on one server)
    dbsize: int
    info: dict  # INFO memory


def memory_nodes() -> list[NodeMemory]:
    """Each primary with its DBSIZE and INFO memory, in one round trip (one wave on a cluster)."""
    client = raw_client()
    if not on_cluster():
        pipe = client.pipeline(transaction=False)
        pipe.dbsize()
        pipe.info("memory")
        dbsize, info = pipe.execute()
        return [NodeMemory("", dbsize, info)]
    nodes = client.primaries()
    replies = client.on_nodes([(node, ("DBSIZE",)) for node in nodes] + [(node, ("INFO", "memory")) for node in nodes])
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return [NodeMemory(node.name, replies[i], replies[len(nodes) + i]) for i, node in enumerate(nodes)]


def memory_slice(node: int, position: int) -> tuple[list[KeyMeta], int]:
    """About MEMORY_SLICE keys of primary ``node`` (its index) from SCAN ``position``, described: two
    round trips. The next position, 0 once the node is walked."""
    args = [b"*", "", MEMORY_SLICE, SCAN_EXAMINED, SCAN_COUNT, *hidden_prefixes()]
    if on_cluster():
        client = raw_client()
        call = script_command(SCAN_PAGE, [], [position, *args], whole=True)
        (reply,) = client.on_nodes([(client.primaries()[node], call)])
        if isinstance(reply, Exception):
            raise reply
        next_position, _, found = reply
    else:
        next_position, _, found = run_script(SCAN_PAGE, [], [position, *args], on=raw_client(), whole=True)
    metas, _ = describe(list(found))
    return metas, int(next_position)


# The server's own view (``/keys/server/``): read-only commands only, each node's in one round trip.
SERVER_SECTIONS = ("server", "memory", "persistence", "replication", "clients", "stats", "commandstats")
SLOWLOG_SHOWN = 50


@dataclass(frozen=True)
class NodeServer:
    name: str  # host:port ("" on one server)
    info: dict  # section -> INFO fields
    slowlog: list  # SLOWLOG GET as Redis replies it: id, time, microseconds, arguments, client, name
    latency: str  # LATENCY DOCTOR's report


def _server_calls() -> list[tuple]:
    return [
        *(("INFO", section) for section in SERVER_SECTIONS),
        ("SLOWLOG", "GET", SLOWLOG_SHOWN),  # as "SLOWLOG", not "SLOWLOG GET": each argument kept apart
        ("LATENCY", "DOCTOR"),
    ]


def _node_server(name: str, replies: list) -> NodeServer:
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    *infos, slowlog, latency = replies
    latency = latency.decode("utf-8", "replace") if isinstance(latency, bytes) else str(latency)
    return NodeServer(name, dict(zip(SERVER_SECTIONS, infos)), list(slowlog), latency)


def server_view() -> list[NodeServer]:
    """INFO of each section, the slow log and LATENCY DOCTOR of every node (replicas too), in one wave."""
    client = raw_client()
    calls = _server_calls()
    if not on_cluster():
        pipe = client.pipeline(transaction=False)
        for call in calls:
            pipe.execute_command(*call)
        return [_node_server("", pipe.execute(raise_on_error=False))]
    nodes = sorted(client.get_nodes(), key=lambda node: node.name)
    replies = client.on_nodes([(node, call) for node in nodes for call in calls])
    return [_node_server(node.name, replies[i * len(calls) : (i + 1) * len(calls)]) for i, node in enumerate(nodes)]
