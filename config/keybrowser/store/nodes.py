"""Walking every primary of a Redis Cluster for the key browser, and placing keys on their nodes:
a cursor names the node as well as the SCAN position on it (``Walk``), DBSIZE is summed over the
primaries, and each key is shown with its node and hash slot."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from django.core.exceptions import BadRequest

from config.redis import on_cluster, raw_client
from config.store.scripts import script_command

if TYPE_CHECKING:
    from config.keybrowser.store import KeyMeta

SCAN_CURSOR_END = 2**64  # SCAN cursors are unsigned 64-bit


class BadCursor(ValueError, BadRequest):
    """A cluster cursor naming no node: a ValueError for the views that check positions, else a 400."""


NODE_BITS = 8  # a cluster cursor is the node's SCAN cursor << NODE_BITS | the node's index
NODES_MOST = 1 << NODE_BITS
POSITION_END = SCAN_CURSOR_END >> NODE_BITS  # so a cluster cursor stays below 2^64, as a SCAN cursor


class Walk:
    """The primaries of a cluster, walked one after the other by a cursor that names the node.

    ``position << 8 | index`` is SCAN position ``position`` on node ``index``; a node's walk ending
    moves the cursor to the next node's start, the last one's to 0. The cursor stays below 2^64,
    like a SCAN cursor, so the same forms and links carry it. The order is by address.
    """

    def __init__(self, cursor: int):
        self.client = raw_client()
        self.nodes = self.client.primaries()[:NODES_MOST]
        if not 0 <= cursor < SCAN_CURSOR_END or cursor & (NODES_MOST - 1) >= len(self.nodes):
            raise BadCursor(f"no node {cursor & (NODES_MOST - 1)} in a cluster of {len(self.nodes)} primaries")
        self.index, self.position = cursor & (NODES_MOST - 1), cursor >> NODE_BITS

    @property
    def node(self):
        return self.nodes[self.index]

    @property
    def done(self) -> bool:
        return self.index >= len(self.nodes)

    def wave(self, script: str, *args, count_keys: bool = False) -> tuple[list, int]:
        """``script`` (its first argument the SCAN position) on the current node and every later one
        from its start, in one wave; their replies in node order. The caller ``advance``-s past each and
        stops at the first whose walk did not end: the later replies are dropped, and asked again from
        their start next time, so nothing is counted twice. ``count_keys``: DBSIZE summed (else 0)."""
        calls = [
            (node, script_command(script, [], [self.position if index == self.index else 0, *args], whole=True))
            for index, node in enumerate(self.nodes)
            if index >= self.index
        ]
        if count_keys:
            calls += [(node, ("DBSIZE",)) for node in self.nodes]
        replies = self.client.on_nodes(calls)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        scripts = len(self.nodes) - self.index
        return replies[:scripts], sum(replies[scripts:])

    def advance(self, position: int) -> None:
        """Where the current node's SCAN stopped: go on there, or at the next node when it ended."""
        if position >= POSITION_END:
            raise BadCursor(f"a SCAN position too large to carry with its node: {position}")
        if position:
            self.position = position
        else:
            self.index, self.position = self.index + 1, 0

    @property
    def cursor(self) -> int:
        return 0 if self.done else self.position << NODE_BITS | self.index


def dbsize() -> int:
    """Keys in the whole keyspace: on a cluster DBSIZE on every primary, in one wave."""
    if on_cluster():
        client = raw_client()
        return sum(client.on_nodes([(node, ("DBSIZE",)) for node in client.primaries()]))
    return raw_client().dbsize()


def by_node(keys: list[bytes]) -> dict:
    """The keys grouped by the primary holding them, in the order given; every primary present."""
    client = raw_client()
    grouped = {node.name: (node, []) for node in client.primaries()}
    for key in keys:
        node = client.nodes_manager.get_node_from_slot(client.keyslot(key))
        grouped.setdefault(node.name, (node, []))[1].append(key)
    return grouped


def placed(metas: list[KeyMeta]) -> list[KeyMeta]:
    """On a cluster, each key with its node and hash slot (from the client's slot map)."""
    if not on_cluster() or not metas:
        return metas
    client = raw_client()
    out = []
    for meta in metas:
        slot = client.keyslot(meta.key)
        node = client.nodes_manager.get_node_from_slot(slot)
        out.append(replace(meta, slot=slot, node=node.name if node else ""))
    return out
