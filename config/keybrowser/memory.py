"""Memory by registered pattern: the walk over every primary, its estimates and their margins.

The walk (``measure``) goes over each primary a slice at a time, tallying each key under its
registered pattern (or none). A primary walked to its end is counted exactly; one with more keys
than ``serverstore.MEMORY_WALK`` is estimated from the keys described, a uniform sample as SCAN
visits it: scaled by DBSIZE over the sample's size, with a 95% interval from the sample's spread
(the finite population correction makes it zero once the sample is the whole keyspace). The
result is cached in Django's cache until the next "measure again".
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from django.core.cache import cache
from django.utils import timezone

from config.keybrowser.display import is_hidden
from config.keybrowser.store import server as serverstore
from config.keyspace import KeyPattern, keyspace

CACHE_KEY = "keybrowser:memory"
Z95 = 1.96
UNREGISTERED = "(no registered pattern)"


@dataclass
class Tally:
    """What the sample of one primary holds of one pattern: sums for the estimate and its spread."""

    keys: int = 0
    bytes: int = 0
    squares: int = 0  # of each key's bytes, for the sample's variance
    records: int = 0
    encodings: Counter = field(default_factory=Counter)


@dataclass
class NodeWalk:
    name: str
    dbsize: int
    info: dict
    described: int = 0
    complete: bool = False
    tallies: dict[str, Tally] = field(default_factory=dict)


def records_of(meta, pattern: KeyPattern | None) -> int:
    """Records a key holds: a collection's elements, a bucket string's fixed-size records, else one."""
    if meta.type == "string":
        return (meta.length or 0) // pattern.record if pattern and pattern.record else 1
    return meta.length or 0


def walk_node(index: int, node: serverstore.NodeMemory) -> NodeWalk:
    """One primary, a slice at a time, until its SCAN ends or MEMORY_WALK keys are described."""
    walk, position = NodeWalk(node.name, node.dbsize, node.info), 0
    while True:
        metas, position = serverstore.memory_slice(index, position)
        for meta in metas:
            if not meta.exists or is_hidden(meta.key):
                continue
            pattern = keyspace.match(meta.key.decode("utf-8", "replace"))
            tally = walk.tallies.setdefault(pattern.pattern if pattern else UNREGISTERED, Tally())
            size = meta.memory or 0
            tally.keys += 1
            tally.bytes += size
            tally.squares += size * size
            tally.records += records_of(meta, pattern)
            tally.encodings[meta.encoding] += 1
            walk.described += 1
        if not position:
            walk.complete = True
            return walk
        if walk.described >= serverstore.MEMORY_WALK:
            return walk


def _estimate(total: float, squares: float, sample: int, population: int, complete: bool) -> tuple[float, float]:
    """A primary's total of a per-key value and its 95% margin, from the sample's sum and sum of squares."""
    if complete or sample == 0:
        return total, 0.0
    population = max(population, sample)
    mean = total / sample
    variance = max(squares - sample * mean * mean, 0.0) / max(sample - 1, 1)
    correction = (population - sample) / max(population - 1, 1)
    return population * mean, Z95 * population * math.sqrt(variance / sample * correction)


def summarize(walks: list[NodeWalk]) -> dict:
    """The page's rows, one per pattern, and the totals against INFO memory: plain values, to cache."""
    shown = {p.pattern for p in keyspace.patterns if not is_hidden(p.pattern)}  # each, with keys or none
    names = sorted(shown | {name for walk in walks for name in walk.tallies})
    by_pattern = {p.pattern: p for p in keyspace.patterns}
    rows = []
    for name in names:
        keys = margin_keys = size = margin_size = 0.0
        sample = sample_bytes = records = 0
        encodings: Counter = Counter()
        for walk in walks:
            tally = walk.tallies.get(name)
            if tally is None:
                continue
            scale = walk.dbsize / walk.described if walk.described and not walk.complete else 1
            count, count_margin = _estimate(tally.keys, tally.keys, walk.described, walk.dbsize, walk.complete)
            total, total_margin = _estimate(tally.bytes, tally.squares, walk.described, walk.dbsize, walk.complete)
            keys, size = keys + count, size + total
            margin_keys = math.hypot(margin_keys, count_margin)
            margin_size = math.hypot(margin_size, total_margin)
            sample, sample_bytes = sample + tally.keys, sample_bytes + tally.bytes
            records += round(tally.records * scale)
            encodings.update(tally.encodings)
        pattern = by_pattern.get(name)
        rows.append(
            {
                "pattern": name,
                "registered": pattern is not None,
                "app": pattern.app if pattern else "",
                "type": pattern.type if pattern else "",
                "modeling": pattern.modeling if pattern else "",
                "record": pattern.record if pattern else 0,
                "keys": round(keys),
                "keys_margin": round(margin_keys),
                "bytes": round(size),
                "bytes_margin": round(margin_size),
                "sample": sample,
                "sample_bytes": sample_bytes,
                "per_key": sample_bytes / sample if sample else 0,
                "records": records,
                "per_record": size / records if records else 0,
                "encodings": sorted(encodings.items(), key=lambda item: (-item[1], item[0])),
            }
        )
    rows.sort(key=lambda row: -row["bytes"])
    dataset = sum(int(walk.info.get("used_memory_dataset", 0)) for walk in walks)
    measured = sum(row["bytes"] for row in rows)
    return {
        "measured_at": timezone.now(),
        "rows": rows,
        "buckets": buckets(rows),
        "nodes": [
            {"name": w.name, "dbsize": w.dbsize, "described": w.described, "complete": w.complete} for w in walks
        ],
        "complete": all(walk.complete for walk in walks),
        "described": sum(walk.described for walk in walks),
        "dbsize": sum(walk.dbsize for walk in walks),
        "bytes": measured,
        "bytes_margin": round(math.sqrt(sum(row["bytes_margin"] ** 2 for row in rows))),
        "used_memory": sum(int(walk.info.get("used_memory", 0)) for walk in walks),
        "used_memory_dataset": dataset,
        "ratio": measured / dataset if dataset else 0,
        "slice": serverstore.MEMORY_SLICE,
        "walk": serverstore.MEMORY_WALK,
    }


def buckets(rows: list[dict]) -> list[dict]:
    """Each bucket string (fixed-size records) beside what a hash per record would cost, priced at the
    mean key of the smallest hash pattern of the same modeling pattern (else of any hash pattern)."""
    hashes = [row for row in rows if row["type"] == "hash" and row["sample"]]
    out = []
    for row in rows:
        if not row["record"] or not row["records"]:
            continue
        peers = [h for h in hashes if h["modeling"] == row["modeling"]] or hashes
        if not peers:
            continue
        peer = min(peers, key=lambda h: h["per_key"])
        out.append(
            {
                "pattern": row["pattern"],
                "per_record": row["per_record"],
                "hash_pattern": peer["pattern"],
                "per_hash": peer["per_key"],
                "hash_bytes": round(peer["per_key"] * row["records"]),
                "bytes": row["bytes"],
                "factor": peer["per_key"] / row["per_record"] if row["per_record"] else 0,
            }
        )
    return out


def measure() -> dict:
    """Walk every primary, summarize and cache the result; returns it."""
    walks = [walk_node(index, node) for index, node in enumerate(serverstore.memory_nodes())]
    result = summarize(walks)
    cache.set(CACHE_KEY, result, None)
    return result


def cached() -> dict | None:
    """The latest measure, or None before the first."""
    return cache.get(CACHE_KEY)
