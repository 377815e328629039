"""The key browser's scans (key lists, the namespace tree, orphans); ``key`` reads one key's
page and a pattern's index, ``server`` the memory walk's slices and the server's own view,
``nodes`` walks a cluster's primaries. These modules are the only code that talks to Redis for it.

Read-only by construction: SCAN, the HSCAN / SSCAN / ZRANGE / LRANGE / XRANGE / GETRANGE family
with limits, DBSIZE, the cardinality commands, and small read-only Lua scripts (``lua/*.lua``)
sent whole (EVAL: a flushed script cache never costs a second round trip nor a SCRIPT LOAD).
Never KEYS, never a whole read of a collection. The raw client keeps bytes, so binary names and
values reach ``display`` intact; Django's cache and session keys are refused here as well as
hidden from listings (``display.is_hidden``).

On a Redis Cluster each scan asks every primary at once, in one wave, and takes their keys in a
stable node order; its cursor names the node as well as the SCAN position on it (``nodes.Walk``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from config.keybrowser.display import hidden_prefixes, is_hidden
from config.keybrowser.store.nodes import Walk, by_node, placed
from config.keyspace import KeyPattern, keyspace
from config.redis import on_cluster, raw_client
from config.store.scripts import lua, queue_script, run_script, script_command

PAGE = 50  # keys on a list page, members on a key page
SCAN_COUNT = 500  # the largest COUNT hint of a SCAN step (a page starts with COUNT = its size)
# Slots a list request's SCAN steps ask for in all (their COUNTs summed), whatever the keyspace size,
# so a sparse match never holds Redis for as long as the keyspace is large: this bounds what any one
# command visits; "Load more" continues from the cursor, a request and a slice at a time.
SCAN_EXAMINED = 800
# Per tree request, one script of TREE_STEPS SCAN steps of TREE_COUNT slots: each key found is split
# and counted in Lua, so a slice of about 250 keys; "Scan further" and "count to the end" go on from there.
TREE_STEPS = 1
TREE_COUNT = 250
TREE_CHILDREN = 200  # distinct children a tree node counts; the rest are counted together
STRING_CHUNK = 16 * 1024  # bytes of a string shown per page (GETRANGE)

# The list's, the tree's, the orphans' and the description's scripts: read-only, sent whole (EVAL).
SCAN_PAGE = lua(__file__, "scan_page")
_TREE = lua(__file__, "tree")
_ORPHANS = lua(__file__, "orphans")
_DESCRIBE_KEYS = lua(__file__, "describe_keys")
ENTRY = 5  # the values the script gives a key

_STREAM_ID = re.compile(r"^\d{1,20}-\d{1,20}\Z")
OFFSET_END = 2**63  # LRANGE, ZRANGE and GETRANGE offsets are signed 64-bit
# Keys (and SCAN slots) the one script of an orphans request examines at most, each matched against
# its few registered patterns in Lua. The page scans on by itself (htmx), a request at a time, until
# it holds a page of orphans.
ORPHAN_SCAN = 200


class HiddenKey(Exception):
    """A Django cache or session key was asked for by name."""


@dataclass(slots=True)  # built fifty to a page: not frozen, see display.Shown
class KeyMeta:
    key: bytes
    type: str  # "none" when the key does not exist
    length: int | None
    ttl_ms: int | None  # None: no TTL
    encoding: str
    memory: int | None
    node: str = ""  # on a cluster, the primary holding the key (host:port)
    slot: int | None = None  # on a cluster, the key's hash slot

    @property
    def exists(self) -> bool:
        return self.type != "none"


@dataclass(frozen=True)
class ScanPage:
    keys: list[KeyMeta]
    cursor: int  # 0 when the whole keyspace has been walked
    steps: int  # SCAN calls made inside the script
    dbsize: int
    exact: KeyMeta | None = None  # the key named exactly as searched, wherever the SCAN is
    examined: int = 0  # keys the SCAN returned (before filtering), when the caller counts them


def _queue_describe(pipe, keys: list[bytes], with_dbsize: bool = False) -> None:
    """One command describing ``keys`` (and DBSIZE), every key in KEYS: on a cluster, one key a call."""
    if keys or with_dbsize:
        queue_script(pipe, _DESCRIBE_KEYS, keys, ["1" if with_dbsize else "0"], whole=True)


def _meta(key: bytes, entry) -> KeyMeta:
    """A key's description from its ``ENTRY`` values (an exception when the script failed)."""
    if not isinstance(entry, list):
        return KeyMeta(key=key, type="none", length=None, ttl_ms=None, encoding="", memory=None)
    kind, length, pttl, encoding, memory = entry
    return KeyMeta(
        key=key,
        type=kind.decode(),
        length=length if length >= 0 else None,
        ttl_ms=pttl if pttl >= 0 else None,
        encoding=encoding.decode() if encoding else "",
        memory=memory,
    )


def describe(keys: list[bytes], with_dbsize: bool = False) -> tuple[list[KeyMeta], int]:
    """Type, length, TTL, encoding and memory of every key, and DBSIZE, in one command (on a
    cluster, one per node, in one wave), so a page of 50 keys is not two hundred commands."""
    hidden = hidden_prefixes()  # once: a page describes fifty keys
    keys = [k for k in keys if not k.startswith(hidden)]
    if not keys and not with_dbsize:
        return [], 0
    client = raw_client()
    if not on_cluster():
        entries = run_script(_DESCRIBE_KEYS, keys, ["1" if with_dbsize else "0"], on=client, whole=True)
        total = entries.pop() if with_dbsize else 0
        return [_meta(key, entries[n * ENTRY : (n + 1) * ENTRY]) for n, key in enumerate(keys)], total
    flag = "1" if with_dbsize else "0"
    grouped = [(node, mine) for node, mine in by_node(keys).values() if mine or with_dbsize]
    calls = [(node, script_command(_DESCRIBE_KEYS, [], [flag, *mine], whole=True)) for node, mine in grouped]
    replies = client.on_nodes(calls, keys=[tuple(mine) for _, mine in grouped])
    found, total = {}, 0
    for (_, mine), entries in zip(grouped, replies):
        if isinstance(entries, Exception):
            raise entries
        total += entries.pop() if with_dbsize else 0
        found.update((key, _meta(key, entries[n * ENTRY : (n + 1) * ENTRY])) for n, key in enumerate(mine))
    return placed([found[key] for key in keys]), total


def _scan(script: str, cursor: int, want: int, *args) -> tuple[list[bytes], int, int, int]:
    """A SCAN script's keys from ``cursor``: (keys, next cursor, most steps, counts summed). On a
    cluster, one wave: every node from the cursor's at once (``Walk.wave``), their keys taken in node
    order up to the first node whose walk did not end or a full page."""
    if not on_cluster():
        position, count, found = run_script(script, [], [cursor, *args], on=raw_client(), whole=True)
        return list(found), int(position), int(count), int(count)
    walk, found, most, total = Walk(cursor), [], 0, 0
    replies, _ = walk.wave(script, *args)
    for position, count, keys in replies:
        found.extend(keys)
        most, total = max(most, int(count)), total + int(count)
        walk.advance(int(position))
        if int(position) or len(found) >= want:
            break
    return found, walk.cursor, most, total


def scan_keys(match: bytes, kind: str = "", cursor: int = 0, want: int = PAGE) -> tuple[list[bytes], int, int]:
    """Key names by SCAN from ``cursor``, in one round trip (one wave): (keys, next cursor, steps)."""
    args = [match, kind, want, SCAN_EXAMINED, SCAN_COUNT, *hidden_prefixes()]
    found, next_cursor, steps, _ = _scan(SCAN_PAGE, cursor, want, *args)
    return found, next_cursor, steps


def scan_page(match: bytes, kind: str = "", cursor: int = 0, want: int = PAGE, exact: bytes = b"") -> ScanPage:
    """One page of keys by SCAN from ``cursor``, with their metadata: two round trips. ``exact``, a
    name searched for literally, is described with them, so it shows at once, not after "load more"."""
    found, next_cursor, done = scan_keys(match, kind, cursor, want)
    extra = [exact] if exact and not cursor and exact not in found and not is_hidden(exact) else []
    metas, dbsize = describe(found + extra, with_dbsize=True)
    named = metas.pop() if extra else next((m for m in metas if exact and m.key == exact), None)
    if named is not None and (not named.exists or (kind and named.type != kind)):
        named = None
    return ScanPage(metas, next_cursor, done, dbsize, named)


def pattern_scan_page(pattern: KeyPattern, cursor: int = 0) -> ScanPage:
    """Keys of a pattern with no index: SCAN MATCH and TYPE, then only the keys with
    one segment per ``*`` (SCAN's ``*`` also spans ``:``) are described. Two round trips."""
    found, next_cursor, done = scan_keys(pattern.pattern.encode(), pattern.type, cursor)
    mine = [k for k in found if pattern.matches(k.decode("utf-8", "replace"))]
    metas, dbsize = describe(mine, with_dbsize=True)
    return ScanPage(metas, next_cursor, done, dbsize)


_LUA_MAGIC = re.compile(r"([\^$()%.\[\]*+\-?])")


def _lua_pattern(glob: str) -> str:
    """A registered pattern as an anchored Lua pattern: each ``*`` or ``?`` stays inside its segment."""
    out = []
    for char in glob:
        if char == "*":
            out.append("[^:]*")
        elif char == "?":
            out.append("[^:]")
        else:
            out.append(_LUA_MAGIC.sub(r"%\1", char))
    return "^" + "".join(out) + "$"


def _orphan_registry() -> str:
    """The registry as the orphans script reads it (see lua/orphans.lua), as JSON."""
    exact, two, one, any_ = [], {}, {}, []
    for pattern in keyspace.patterns:
        segments, shape = [*pattern.segments, ""][:2], f"#{len(pattern.segments)}"
        if not any(c in pattern.pattern for c in "*?["):
            exact.append(pattern.pattern)
        elif not any(c in segments[0] for c in "*?["):
            if any(c in segments[1] for c in "*?["):
                one.setdefault(segments[0] + shape, []).append(_lua_pattern(pattern.pattern))
            else:
                two.setdefault(":".join(segments) + shape, []).append(_lua_pattern(pattern.pattern))
        else:
            any_.append(_lua_pattern(pattern.pattern))
    # Lua's cjson reads an empty object as an empty table, and so an empty list: both work.
    return json.dumps({"exact": exact, "two": two, "one": one, "any": any_})


def orphan_page(cursor: int = 0) -> ScanPage:
    """Keys that match no registered pattern, up to a page among at most ORPHAN_SCAN examined, matched
    inside Redis: two round trips (two waves on a cluster). ``examined`` feeds the scan's progress."""
    found, next_cursor, _, examined = _scan(_ORPHANS, cursor, PAGE, PAGE, ORPHAN_SCAN, ORPHAN_SCAN, _orphan_registry())
    metas, dbsize = describe(found, with_dbsize=True)  # which leaves out Django's keys
    return ScanPage(metas, next_cursor, 0, dbsize, examined=examined)


@dataclass
class TreeChunk:
    children: dict[bytes, int]  # next segment (with its trailing ":" for a namespace) -> keys
    others: int  # keys under children past TREE_CHILDREN
    seen: int
    cursor: int
    steps: int
    dbsize: int = 0


def tree_chunk(prefix: bytes, match: bytes, cursor: int = 0) -> TreeChunk:
    """Counts of the keys under ``prefix`` by their next segment, over a bounded SCAN: one round trip
    (on a cluster, one wave: every node from the cursor's at once, with DBSIZE on each primary)."""
    if on_cluster():
        return _tree_nodes(prefix, match, cursor)
    pipe = raw_client().pipeline(transaction=False)
    args = [cursor, prefix, match, TREE_STEPS, TREE_COUNT, TREE_CHILDREN, *hidden_prefixes()]
    queue_script(pipe, _TREE, [], args, whole=True)
    pipe.dbsize()
    flat, dbsize = pipe.execute()
    children = {flat[i]: int(flat[i + 1]) for i in range(4, len(flat), 2)}
    return TreeChunk(children, int(flat[3]), int(flat[2]), int(flat[0]), int(flat[1]), dbsize)


def _tree_nodes(prefix: bytes, match: bytes, cursor: int) -> TreeChunk:
    """Every node from the cursor's counted at once (``Walk.wave``), with DBSIZE of each: one wave."""
    walk, chunk = Walk(cursor), TreeChunk({}, 0, 0, 0, 0)
    args = (prefix, match, TREE_STEPS, TREE_COUNT, TREE_CHILDREN, *hidden_prefixes())
    replies, chunk.dbsize = walk.wave(_TREE, *args, count_keys=True)
    for flat in replies:
        for i in range(4, len(flat), 2):
            name, count = flat[i], int(flat[i + 1])
            if name in chunk.children or len(chunk.children) < TREE_CHILDREN:
                chunk.children[name] = chunk.children.get(name, 0) + count
            else:
                chunk.others += count
        chunk.others += int(flat[3])
        chunk.seen += int(flat[2])
        chunk.steps = max(chunk.steps, int(flat[1]))
        walk.advance(int(flat[0]))
        if int(flat[0]):
            break
    chunk.cursor = walk.cursor
    return chunk
