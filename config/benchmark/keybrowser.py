"""The key browser on a large keyspace (a million keys by default): ``manage.py benchmark --keybrowser N``.

A scratch redis-server (never the development data) is loaded with pipelining:
plain strings, product-like hashes with a sorted set each (registered for the
run as a made-up ``shop`` app, so the browser links them), one hash and one
sorted set of 100,000 members each, and one needle. Each page is then timed
through its view, counting round trips; no page may send KEYS.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

BATCH = 10_000
PAGES = [
    ("list: first page, any key", "/keys/"),
    ("list: page by cursor", "/keys/?cursor=123456"),
    ("list: prefix shop:item:1 (sparse)", "/keys/?pattern=shop:item:1"),
    ("list: full name among them (exact + SCAN page)", "/keys/?pattern=needle"),
    ("list: type hash", "/keys/?type=hash"),
    ("key: a product hash (registered)", "/keys/?key=shop:item:42"),
    ("key: its reviews sorted set (registered)", "/keys/?key=shop:item:42:reviews"),
    ("key: big hash, 100k fields, HSCAN page", "/keys/?key=big:hash"),
    ("key: big zset, 100k members, ZRANGE page", "/keys/?key=big:zset"),
    ("key: big zset, page at rank 90,000", "/keys/?key=big:zset&cursor=90000"),
    ("namespaces: top level (one bounded chunk)", "/keys/tree/"),
    ("orphans: first page", "/keys/orphans/"),
]


def load(total: int) -> float:
    from config.redis import raw_client

    client, started = raw_client(), time.perf_counter()
    products = total // 10
    plain = max(0, total - 2 * products)
    for start in range(0, plain, BATCH):
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(start + BATCH, plain)):
            pipe.set(f"bulk:item:{i}", b"x" * 16)
        pipe.execute()
    for start in range(0, products, BATCH):
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(start + BATCH, products)):
            pipe.hset(f"shop:item:{i}", mapping={"name": f"item {i}", "price": "9.99"})
            pipe.zadd(f"shop:item:{i}:reviews", {f'{{"text": "review of {i}"}}': 5})
        pipe.execute()
    pipe = client.pipeline(transaction=False)
    pipe.hset("big:hash", mapping={f"field{i}": f"value{i}" for i in range(100_000)})
    pipe.zadd("big:zset", {f"member{i}": i for i in range(100_000)})
    pipe.set("needle", "found me")
    pipe.execute()
    return time.perf_counter() - started


@contextmanager
def shop_registered():
    """The made-up ``shop`` app's keys in the registry for the run, removed afterwards."""
    from config.keyspace import keyspace

    patterns, prefixes = list(keyspace.patterns), dict(keyspace.prefixes)
    keyspace.register_app("shop", "shop:")
    keyspace.register("shop", "shop:item:*", "hash", "Embedded", "A product.", url="/shop/items/{id}/")
    keyspace.register("shop", "shop:item:*:reviews", "zset", "Partial embed", "A product's reviews.")
    try:
        yield
    finally:
        keyspace.patterns, keyspace.prefixes = patterns, prefixes


def timed(label: str, url: str, runs: int) -> str:
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory
    from django.urls import resolve

    from config import trace

    factory, times, redis_ms, trips, commands = RequestFactory(), [], [], 0, 0
    p95 = max(0, int(runs * 0.95) - 1)
    match = resolve(url.split("?")[0])
    for _ in range(runs):
        request = factory.get(url)
        request.user, request.htmx, request.resolver_match = AnonymousUser(), False, match
        with trace.recording() as recorded:
            started = time.perf_counter()
            response = match.func(request)
            times.append((time.perf_counter() - started) * 1000)
        redis_ms.append(recorded.ms())
        if response.status_code != 200:
            raise AssertionError(f"{url} answered {response.status_code}")
        if "KEYS" in {c.name for t in recorded.round_trips for c in t.commands}:
            raise AssertionError(f"{url} sent KEYS")
        trips, commands = recorded.round_trip_count(), recorded.command_count()
    return (
        f"| {label} | `{url}` | {statistics.median(times):.2f} | {sorted(times)[p95]:.2f} | "
        f"{statistics.median(redis_ms):.2f} | {trips} | {commands} |"
    )


def measure(total: int, runs: int = 20) -> list[str]:
    """Load ``total`` keys into a scratch server and time every key browser page; the lines of a table."""
    from config.benchmark.suite import scratch_redis
    from config.redis import raw_client

    with tempfile.TemporaryDirectory(prefix="rdash-keys-") as tmp, scratch_redis(Path(tmp)), shop_registered():
        seconds = load(total)
        lines = [
            f"Loaded {raw_client().dbsize():,} keys in {seconds:.1f} s (pipelined, {BATCH:,} commands a batch).",
            "",
            "| page | path | median ms | p95 ms | Redis ms (median) | round trips | commands |",
            "|---|---|---|---|---|---|---|",
        ]
        return lines + [timed(label, url, runs) for label, url in PAGES]
