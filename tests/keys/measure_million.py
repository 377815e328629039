"""Measure the key browser on a keyspace of a million keys (not a test: it times things).

    .venv/bin/python -m tests.keys.measure_million [--keys 1000000]

Starts a scratch redis-server in a temporary directory (never the development
data), loads the keys with pipelining, then times the browser's pages through
their views, counting round trips and SCAN steps, and removes the server.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    from config.redis import EmbeddedRedis

    data_dir = tempfile.mkdtemp(prefix="rdash-million-")
    server = EmbeddedRedis(data_dir, appendfsync="no")
    server.ensure_running()
    os.environ["REDIS_URL"] = server.url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    try:
        import django

        django.setup()
        run(args.keys, args.runs)
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def load(total: int) -> float:
    from config.redis import raw_client

    client, started, batch = raw_client(), time.perf_counter(), 10_000
    products = total // 10
    for start in range(0, total - 2 * products, batch):
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(start + batch, total - 2 * products)):
            pipe.set(f"bulk:item:{i}", b"x" * 16)
        pipe.execute()
    for start in range(0, products, batch):
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(start + batch, products)):
            pipe.hset(f"shop:item:{i}", mapping={"name": f"item {i}", "price": "9.99"})
            pipe.zadd(f"shop:item:{i}:reviews", {f'{{"text": "review of {i}"}}': 5})
        pipe.execute()
    pipe = client.pipeline(transaction=False)
    pipe.hset("big:hash", mapping={f"field{i}": f"value{i}" for i in range(100_000)})
    pipe.zadd("big:zset", {f"member{i}": i for i in range(100_000)})
    pipe.set("needle", "found me")
    pipe.execute()
    return time.perf_counter() - started


def timed(label: str, url: str, runs: int) -> None:
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
        assert response.status_code == 200, (url, response.status_code)
        assert "KEYS" not in {c.name for t in recorded.round_trips for c in t.commands}
        trips, commands = recorded.round_trip_count(), recorded.command_count()
    print(
        f"{label:<42} page median {statistics.median(times):6.2f} ms, p95 {sorted(times)[p95]:6.2f} ms;"
        f" Redis median {statistics.median(redis_ms):6.2f} ms; round trips {trips}, commands {commands}"
    )


def run(total: int, runs: int) -> None:
    from config.keyspace import keyspace
    from config.redis import raw_client

    keyspace.register_app("shop", "shop:")
    keyspace.register("shop", "shop:item:*", "hash", "Embedded", "A product.", url="/shop/items/{id}/")
    keyspace.register("shop", "shop:item:*:reviews", "zset", "Partial embed", "A product's reviews.")

    print(f"loading {total:,} keys ...", flush=True)
    seconds = load(total)
    print(f"loaded {raw_client().dbsize():,} keys in {seconds:.1f} s (pipelined, 10,000 commands a batch)\n")
    timed("list: first page, any key", "/keys/", runs)
    timed("list: page by cursor", "/keys/?cursor=123456", runs)
    timed("list: prefix shop:item:1 (sparse)", "/keys/?pattern=shop:item:1", runs)
    timed("list: full name in 1M (exact + SCAN page)", "/keys/?pattern=needle", runs)
    timed("list: type hash", "/keys/?type=hash", runs)
    timed("key: a product hash (registered)", "/keys/?key=shop:item:42", runs)
    timed("key: its reviews sorted set (registered)", "/keys/?key=shop:item:42:reviews", runs)
    timed("key: big hash, 100k fields, HSCAN page", "/keys/?key=big:hash", runs)
    timed("key: big zset, 100k members, ZRANGE page", "/keys/?key=big:zset", runs)
    timed("key: big zset, page at rank 90,000", "/keys/?key=big:zset&cursor=90000", runs)
    timed("namespaces: top level (one bounded chunk)", "/keys/tree/", runs)
    timed("orphans: first page", "/keys/orphans/", runs)


if __name__ == "__main__":
    sys.exit(main())
