"""The Redis reads and the few direct writes of export and import: SCAN by each app's declared key
patterns and pipelined reads in batches (never a whole app in memory), the id counters, clearing."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from config.keyspace import keyspace
from config.redis import client, raw_client
from config.store import batched, delete_prefix, glob_escape, pipelined

BATCH = 500  # documents per pipelined round trip
SCAN_COUNT = 1000

KeyOf = Callable[[object], str]  # an app's key function of one id: keys.product, keys.post …

# What one read of a document's key returns, by Redis type: the whole value of a bounded key.
_READS = {
    "hash": lambda pipe, key: pipe.hgetall(key),
    "set": lambda pipe, key: pipe.smembers(key),
    "zset": lambda pipe, key: pipe.zrange(key, 0, -1, withscores=True),
    "string": lambda pipe, key: pipe.get(key),
}


_PROBE = 987654321987  # an id no key holds: called with it, a key function shows where its id goes


def _id_pattern(key_of: KeyOf) -> tuple[str, re.Pattern]:
    """The SCAN glob of ``key_of`` and the regex that takes the id out of one of its keys. A segment that
    follows from the id (a catalog partition's hash tag) is matched as its registered glob has it."""
    template, probe = key_of(_PROBE), str(_PROBE)
    parts = template.split(":")
    registered = getattr(getattr(key_of, "entry", None), "segments", parts)
    globs, regexes = [], []
    for part, glob in zip(parts, registered if len(registered) == len(parts) else parts):
        if part == probe:
            globs.append("*")
            regexes.append(r"([0-9]+)")
        elif part != glob:
            globs.append(glob)
            regexes.append(re.escape(glob).replace(r"\*", "[^:]*"))
        else:
            globs.append(glob_escape(part))
            regexes.append(re.escape(part))
    return ":".join(globs), re.compile(":".join(regexes))


def ids(key_of: KeyOf) -> list[int]:
    """The ids of every key ``key_of(id)`` holds, ascending: SCAN MATCH by the key's own pattern."""
    glob, exact = _id_pattern(key_of)
    found = set()
    for key in client().scan_iter(match=glob, count=SCAN_COUNT):
        matched = exact.fullmatch(key)
        if matched:
            found.add(int(matched[1]))
    return sorted(found)


def documents(
    id_list: Iterable[int], reads: dict[str, tuple[KeyOf, str]], batch: int = BATCH
) -> Iterator[tuple[int, dict]]:
    """(id, {name: value}) for each id, ``reads`` (name -> (key function, Redis type)) in one round trip a
    batch; the first read is the document, skipped when it vanished."""
    items = list(reads.items())
    for chunk in batched(id_list, batch):
        pipe = client().pipeline(transaction=False)
        for pk in chunk:
            for _, (key_of, kind) in items:
                _READS[kind](pipe, key_of(pk))
        replies = pipe.execute()
        width = len(items)
        for i, pk in enumerate(chunk):
            row = dict(zip((name for name, _ in items), replies[i * width : (i + 1) * width]))
            if row[items[0][0]]:
                yield pk, row


def strings(names: list[str], batch: int = BATCH) -> Iterator[tuple[str, bytes]]:
    """(key, bytes) of each string key named that exists: time buckets (a sensor's hours), named, not SCANned."""
    for chunk in batched(names, batch):
        pipe = raw_client().pipeline(transaction=False)
        for key in chunk:
            pipe.get(key)
        for key, value in zip(chunk, pipe.execute()):
            if value is not None:
                yield key, value


def counters(named: dict[str, str]) -> dict[str, int]:
    """The id counters' values (name -> INCR key), 0 for one never used (they may lie in several slots)."""
    values = pipelined(list(named.values()), lambda pipe, key: pipe.get(key))
    return {name: int(value or 0) for name, value in zip(named, values)}


def set_counter(key: str, value: int) -> None:
    """Put an id counter at ``value``: just before a create, ``id - 1`` makes its INCR hand out ``id``."""
    client().set(key, value)


def raise_counters(values: dict[str, int]) -> None:
    """Set each counter (INCR key -> value), in one transaction (an app's counters share its slot)."""
    pipe = client().pipeline(transaction=True)
    for key, value in values.items():
        pipe.set(key, value)
    pipe.execute()


def any_exists(groups: list[list[str]]) -> list[bool]:
    """For each group of keys, whether any exists: one pipeline of EXISTS, a key each (any slot)."""
    found = iter(pipelined([key for group in groups for key in group], lambda pipe, key: pipe.exists(key)))
    return [any([next(found) for _ in group]) for group in groups]


def mark_counters(keys: list[str]) -> None:
    """Create each id counter that does not exist yet, at 0 (SET NX: an existing one keeps its value)."""
    pipelined(keys, lambda pipe, key: pipe.set(key, 0, nx=True))


def clear(app: str) -> int:
    """UNLINK every key under the app's prefix, by SCAN in batches; returns how many went."""
    return delete_prefix(keyspace.prefix(app))
