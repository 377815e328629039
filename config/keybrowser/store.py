"""The key browser's scans (key lists, the namespace tree, orphans); ``keystore`` reads one key's
page and a pattern's index, ``serverstore`` the memory walk's slices and the server's own view,
``nodes`` walks a cluster's primaries. These modules are the only code that talks to Redis for it.

Read-only by construction: the only commands sent are SCAN and the HSCAN /
SSCAN / ZRANGE / LRANGE / XRANGE / GETRANGE family with limits, DBSIZE, the
cardinality commands, and small read-only Lua scripts sent whole (EVAL, by
``config.store.scripts``, so a flushed script cache never costs a second round
trip nor a SCRIPT LOAD): the SCAN loops, and the
description of a page of keys (TYPE, length, PTTL, OBJECT ENCODING, MEMORY
USAGE, each key in KEYS) in one command. Never KEYS, never a whole read of a
collection.

The raw client keeps bytes, so binary names and values reach ``display``
intact. Django's cache and session keys are refused here as well as hidden
from listings (see ``display.is_hidden``).

On a Redis Cluster each scan asks every primary node at once, in one wave, and
takes their keys in a stable node order; its cursor names the node as well as
the SCAN position on it (see ``nodes.Walk``). A page's keys are described on
their nodes, each node's in one script, in one wave, with their node and slot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from config.keybrowser.display import hidden_prefixes, is_hidden
from config.keybrowser.nodes import Walk, by_node, placed
from config.keyspace import KeyPattern, keyspace
from config.redis import on_cluster, raw_client
from config.store.scripts import queue_script, run_script, script_command

PAGE = 50  # keys on a list page, members on a key page
SCAN_COUNT = 500  # the largest COUNT hint of a SCAN step (a page starts with COUNT = its size)
# Slots a list request's SCAN steps ask for in all (their COUNTs summed), whatever the keyspace size:
# a sparse match on a large keyspace otherwise steps on until a page fills, holding Redis for as long
# as the keyspace is large. The one script a request sends spends them, so this bounds what any one
# command visits; "Load more" continues from the cursor, a request and a slice at a time.
SCAN_EXAMINED = 800
# Per tree request, one script of TREE_STEPS SCAN steps of TREE_COUNT slots: each key found is split
# and counted in Lua, so a slice of about 250 keys; "Scan further" and "count to the end" go on from there.
TREE_STEPS = 1
TREE_COUNT = 250
TREE_CHILDREN = 200  # distinct children a tree node counts; the rest are counted together
STRING_CHUNK = 16 * 1024  # bytes of a string shown per page (GETRANGE)

# SCAN in steps until a page is full, the keyspace is walked, or the slots the
# steps may ask for in all (ARGV[5]) are asked. Hidden prefixes are dropped here so
# they never leave Redis.
SCAN_PAGE = """-- key browser: SCAN a page
local cursor, match, kind = ARGV[1], ARGV[2], ARGV[3]
local want, budget, most = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local found, done, asked, count = {}, 0, 0, math.min(want, budget)
repeat
  local reply
  if kind == '' then
    reply = redis.call('SCAN', cursor, 'MATCH', match, 'COUNT', count)
  else
    reply = redis.call('SCAN', cursor, 'MATCH', match, 'COUNT', count, 'TYPE', kind)
  end
  cursor, done, asked = reply[1], done + 1, asked + count
  for _, key in ipairs(reply[2]) do
    local shown = true
    for i = 7, #ARGV do
      if string.sub(key, 1, #ARGV[i]) == ARGV[i] then shown = false break end
    end
    if shown then found[#found + 1] = key end
  end
  -- Ask for as many slots as the hit rate so far says the page still needs, within the budget.
  if #found == 0 then
    count = math.min(count * 4, most)
  else
    count = math.max(10, math.min(most, math.ceil((want - #found) * asked / #found)))
  end
  count = math.min(count, budget - asked)
until cursor == '0' or #found >= want or count <= 0
return {cursor, done, found}
"""

# SCAN under one prefix, counting keys by their next ``:`` segment, so a tree
# node costs one round trip and ships counts, not key names.
_TREE = """-- key browser: count a prefix by segment
local cursor, prefix, match = ARGV[1], ARGV[2], ARGV[3]
local steps, count, most = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local counts, order, others, done, seen = {}, {}, 0, 0, 0
repeat
  local reply = redis.call('SCAN', cursor, 'MATCH', match, 'COUNT', count)
  cursor, done = reply[1], done + 1
  for _, key in ipairs(reply[2]) do
    local shown = true
    for i = 7, #ARGV do
      if string.sub(key, 1, #ARGV[i]) == ARGV[i] then shown = false break end
    end
    if shown then
      seen = seen + 1
      local rest = string.sub(key, #prefix + 1)
      local sep = string.find(rest, ':', 1, true)
      local child = sep and string.sub(rest, 1, sep) or rest
      if counts[child] then
        counts[child] = counts[child] + 1
      elseif #order < most then
        order[#order + 1] = child
        counts[child] = 1
      else
        others = others + 1
      end
    end
  end
until cursor == '0' or done >= steps
local flat = {cursor, done, seen, others}
for _, child in ipairs(order) do
  flat[#flat + 1] = child
  flat[#flat + 1] = counts[child]
end
return flat
"""

# SCAN for keys that match no registered pattern, matched inside Redis so only the
# orphans travel back. The registry comes as JSON (ARGV[5]): names without a wildcard
# in a set, and Lua patterns indexed by their first two segments (or the first, or
# none, where those hold a wildcard) and their number of segments (a ``*`` never spans
# a ``:``), so a key is looked up, then tried against its own few patterns only. COUNT
# adapts to the orphan rate so far, as in SCAN_PAGE, and never asks past ``most`` slots or
# keys examined. Stops at about ``want`` orphans, at the end of the keyspace, or at ``most``.
_ORPHANS = """-- key browser: SCAN for orphans
local cursor, want, most, top = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local registry = cjson.decode(ARGV[5])
local exact, two, one, any = {}, registry.two, registry.one, registry.any
for _, name in ipairs(registry.exact) do exact[name] = true end
local none = {}
local function owned_by(list, key)
  for _, pattern in ipairs(list) do
    if string.find(key, pattern) then return true end
  end
  return false
end
local found, examined, asked, count = {}, 0, 0, math.min(want, most)
repeat
  local reply = redis.call('SCAN', cursor, 'COUNT', count)
  cursor, asked = reply[1], asked + count
  for _, key in ipairs(reply[2]) do
    examined = examined + 1
    if not exact[key] then
      local first, second = string.match(key, '^([^:]*):?([^:]*)')
      local shape = '#' .. (select(2, string.gsub(key, ':', ':')) + 1)
      if not (owned_by(two[first .. ':' .. second .. shape] or none, key)
              or owned_by(one[first .. shape] or none, key) or owned_by(any, key)) then
        found[#found + 1] = key
      end
    end
  end
  if #found == 0 then
    count = math.min(count * 4, top)
  else
    count = math.max(10, math.min(top, math.ceil((want - #found) * examined / #found)))
  end
  count = math.min(count, most - math.max(examined, asked))
until cursor == '0' or #found >= want or count <= 0
return {cursor, examined, found}
"""

# Everything a list shows of each key in KEYS, in one command whatever the type and the
# number of keys: type, length, PTTL, encoding, memory for each key in turn ("none", -1, -2
# and nil for a missing one), then DBSIZE when ARGV[1] is "1". One flat array: Redis 6.2
# writes each nested table of a script's reply to the socket by a write() of its own, and
# the client reads them by as many recv() calls. A script runs alone, so a key TYPE found
# stays until its last read (OBJECT and MEMORY cannot meet a missing key). A Lua array
# stops at its first nil, so a missing reply travels as false (a nil reply).
_DESCRIBE_KEYS = """-- key browser: describe keys
local lengths = {string = 'STRLEN', hash = 'HLEN', list = 'LLEN', set = 'SCARD', zset = 'ZCARD', stream = 'XLEN'}
local out = {}
-- On one server the keys are KEYS; on a cluster they are one node's keys of many slots, given after the
-- flag in ARGV (a script's KEYS must share one slot, while its commands may read any key of its node).
local names = KEYS
if #KEYS == 0 then names = {unpack(ARGV, 2)} end
for i, key in ipairs(names) do
  local t, at = redis.call('TYPE', key)['ok'], (i - 1) * 5
  out[at + 1], out[at + 2], out[at + 3], out[at + 4], out[at + 5] = t, -1, -2, false, false
  if t ~= 'none' then
    if lengths[t] then out[at + 2] = redis.call(lengths[t], key) end
    out[at + 3] = redis.call('PTTL', key)
    out[at + 4] = redis.call('OBJECT', 'ENCODING', key)
    out[at + 5] = redis.call('MEMORY', 'USAGE', key)
  end
end
if ARGV[1] == '1' then out[#names * 5 + 1] = redis.call('DBSIZE') end
return out
"""
ENTRY = 5  # the values the script gives a key

_STREAM_ID = re.compile(r"^\d{1,20}-\d{1,20}\Z")
OFFSET_END = 2**63  # LRANGE, ZRANGE and GETRANGE offsets are signed 64-bit
# Keys (and SCAN slots) the one script of an orphans request examines at most: each is matched
# against its few registered patterns in Lua, several microseconds a key. The page scans on by
# itself (htmx), a request at a time, until it holds a page of orphans.
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
    """One command describing ``keys`` (and DBSIZE): every key of it in KEYS, so on a
    cluster, where a script's keys must share a slot, it is queued once per key."""
    if keys or with_dbsize:
        queue_script(pipe, _DESCRIBE_KEYS, keys, ["1" if with_dbsize else "0"], whole=True)


def _meta(key: bytes, entry) -> KeyMeta:
    """A key's description from its ``ENTRY`` values of ``_DESCRIBE_KEYS`` (an exception when the
    script failed)."""
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
    """Type, length, TTL, encoding and memory of every key, and DBSIZE, in one round trip:
    one script for all the keys on one server, so a page of 50 keys is one command and not
    two hundred (on a cluster, a script per key, pipelined: one round trip per node the
    keys live on, sent together, and DBSIZE on every primary)."""
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


def scan_keys(match: bytes, kind: str = "", cursor: int = 0, want: int = PAGE) -> tuple[list[bytes], int, int]:
    """Key names by SCAN from ``cursor``, in one round trip: (keys, next cursor, SCAN steps).

    On a cluster, one wave: the cursor's node and every later one scanned at once, their keys
    taken in node order up to the first node whose walk did not end or a full page."""
    if on_cluster():
        return _scan_nodes(match, kind, cursor, want)
    args = [cursor, match, kind, want, SCAN_EXAMINED, SCAN_COUNT, *hidden_prefixes()]
    next_cursor, done, found = run_script(SCAN_PAGE, [], args, on=raw_client(), whole=True)
    return list(found), int(next_cursor), int(done)


def _scan_nodes(match: bytes, kind: str, cursor: int, want: int) -> tuple[list[bytes], int, int]:
    """Every node from the cursor's scanned at once (``Walk.wave``), their keys taken in node order."""
    walk, found, steps = Walk(cursor), [], 0
    replies, _ = walk.wave(SCAN_PAGE, match, kind, want, SCAN_EXAMINED, SCAN_COUNT, *hidden_prefixes())
    for position, done, keys in replies:
        found.extend(keys)
        steps = max(steps, int(done))
        walk.advance(int(position))
        if int(position) or len(found) >= want:
            break
    return found, walk.cursor, steps


def scan_page(match: bytes, kind: str = "", cursor: int = 0, want: int = PAGE, exact: bytes = b"") -> ScanPage:
    """One page of keys by SCAN from ``cursor``, with their metadata: two round trips.

    ``exact``, a name searched for literally, is described in the same pipeline,
    so a key found by its full name shows at once, not after a walk through a
    million keys with "load more".
    """
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
    """The registry as the orphans script reads it (see _ORPHANS), as JSON."""
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
    """Keys that match no registered pattern, up to a page of them among at most
    ORPHAN_SCAN keys examined, matched inside Redis: two round trips (on a cluster,
    two waves: every node from the cursor's at once, then each node's description).
    ``examined`` says how many keys were looked at, for the scan's progress."""
    if on_cluster():
        walk, found, examined = Walk(cursor), [], 0
        replies, _ = walk.wave(_ORPHANS, PAGE, ORPHAN_SCAN, ORPHAN_SCAN, _orphan_registry())
        for position, seen, keys in replies:
            found.extend(keys)
            examined += int(seen)
            walk.advance(int(position))
            if int(position) or len(found) >= PAGE:
                break
        next_cursor = walk.cursor
    else:
        args = [cursor, PAGE, ORPHAN_SCAN, ORPHAN_SCAN, _orphan_registry()]
        next_cursor, examined, found = run_script(_ORPHANS, [], args, on=raw_client(), whole=True)
    metas, dbsize = describe(found, with_dbsize=True)  # which leaves out Django's keys
    return ScanPage(metas, int(next_cursor), 0, dbsize, examined=int(examined))


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
