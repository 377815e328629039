"""Redis access for the cross-cutting pieces: the error family, transactions, events, health. Sign-ins
and their rate limit are in ``config.store.signins``, add forms' tokens in ``config.store.once``."""

from __future__ import annotations

import heapq
import json
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TypeVar

import redis
from django.conf import settings

from config import keys
from config.activity import Event, LoggedEvent, SignIn
from config.redis import client, on_cluster

T = TypeVar("T")


class StoreError(Exception):
    """Every refusal of a store write or read: nothing was written. One family, handled one way: NotFound
    a 404, Refused a form error on ``field``, EditConflict the form with what changed, Busy the 409 page."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class NotFound(StoreError, LookupError):
    """The object does not exist (or no longer does)."""


class Refused(StoreError, ValueError):
    """The data breaks a rule; ``field`` names the form field (None: the form), ``errors`` every one's."""

    def __init__(self, message: str = "", field: str | None = None, errors: dict[str, str] | None = None):
        super().__init__(message, field)
        self.errors = errors if errors is not None else {field or "": message}

    @classmethod
    def fields(cls, errors: dict[str, str]) -> Refused:
        """One refusal of several fields at once (a script's ``refused`` reply)."""
        field, message = next(iter(errors.items()), ("", ""))
        return cls(message, field or None, errors)


class EditConflict(StoreError):
    """The object changed since the form was loaded; ``current``: what it is now, for the conflict page."""

    def __init__(self, message: str = "", field: str | None = None, current=None):
        super().__init__(message, field)
        self.current = current


class Busy(StoreError):
    """The watched keys kept changing past the retries; nothing was written."""


def watch_retries() -> int:
    """How many lost WATCH races a write tolerates before ``Busy``: one setting for every app."""
    return getattr(settings, "STORE_WATCH_RETRIES", 50)


def back_off(attempt: int) -> None:
    """A random pause growing with each lost race, so writers on one hot key do not collide in lockstep."""
    time.sleep(random.uniform(0, min(0.05, 0.001 * 2**attempt)))


def transact(work: Callable[..., T], watch: Iterable[str] = (), retries: int | None = None) -> T:
    """Optimistic read-modify-write, the one WATCH loop of every app. ``work(pipe)`` reads, then calls
    ``pipe.multi()`` and queues its writes (or returns to write nothing). When a watched key changed, it
    all runs again on fresh reads after ``back_off``; past ``retries`` lost races: Busy."""
    watched = tuple(watch)
    for attempt in range(retries or watch_retries()):
        with client().pipeline(transaction=True) as pipe:
            try:
                if watched:
                    pipe.watch(*watched)
                result = work(pipe)
                if pipe.explicit_transaction:
                    pipe.execute()
                return result
            except redis.WatchError:
                back_off(attempt)
    raise Busy(", ".join(watched) or "the watched keys")


def batched(items: Iterable[T], size: int = 500) -> Iterator[list[T]]:
    """``items`` in lists of ``size``: a pipeline's worth at a time, for walks of a whole keyspace."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def pipelined(items: Iterable, queue: Callable[..., object]) -> list:
    """``queue(pipe, item)`` for each item on one plain pipeline, and its replies (none sent for none)."""
    items = list(items)
    if not items:
        return []
    pipe = client().pipeline(transaction=False)
    for item in items:
        queue(pipe, item)
    return pipe.execute()


def queue_event(pipe, event: Event, stream: str) -> None:
    """Queue the event, capped at EVENTS_MAXLEN, in its slot group's ``stream`` (``config.keys.events``)."""
    pipe.xadd(stream, event.fields(), maxlen=settings.EVENTS_MAXLEN, approximate=False)


def _signin(raw: str) -> SignIn:
    data = json.loads(raw)
    return SignIn(data["user"], data.get("addr", ""), datetime.fromtimestamp(data["at"], UTC))


@dataclass(frozen=True)
class FailedSignIn:
    username: str
    address: str
    at: datetime
    refused: bool  # refused by the limit, the password unchecked


@dataclass(frozen=True)
class Activity:
    recent_signins: list[SignIn]
    most_active: list[tuple[str, int]]
    events: list[LoggedEvent]
    failed_signins: list[FailedSignIn]


def _failed(raw: str) -> FailedSignIn:
    data = json.loads(raw)
    return FailedSignIn(
        data["user"], data.get("addr", ""), datetime.fromtimestamp(data["at"], UTC), bool(data.get("refused"))
    )


def activity(signins: int = 10, staff: int = 10, events: int = 20, failed: int = 0) -> Activity:
    """Everything the dashboard home shows from Redis, in one round trip; failed sign-ins when asked."""
    pipe = client().pipeline(transaction=False)
    pipe.lrange(keys.signins_recent(), 0, signins - 1)
    pipe.zrevrange(keys.signins_count(), 0, staff - 1, withscores=True)
    streams = keys.event_streams()
    for stream in streams:
        pipe.xrevrange(stream, count=events)
    if failed:
        pipe.lrange(keys.signins_failed(), 0, failed - 1)
    recent, ranking, *replies = pipe.execute()
    logged = newest_entries(replies[: len(streams)], events)
    return Activity(
        [_signin(raw) for raw in recent],
        [(user, int(score)) for user, score in ranking],
        mark_deleted([LoggedEvent.from_stream(stream_id, fields) for stream_id, fields in logged]),
        [_failed(raw) for raw in replies[len(streams)]] if failed else [],
    )


def _stream_order(entry: tuple[str, dict]) -> tuple[int, int]:
    millis, _, sequence = entry[0].partition("-")
    return int(millis), int(sequence or 0)


def newest_entries(streams: list[list[tuple[str, dict]]], count: int) -> list[tuple[str, dict]]:
    """The ``count`` newest of several streams' XREVRANGE replies, newest first. Stream ids are times, so
    the streams of every slot group merge into one feed (within a millisecond, by sequence number)."""
    return heapq.nlargest(count, (entry for stream in streams for entry in stream), key=_stream_order)


def mark_deleted(events: list[LoggedEvent]) -> list[LoggedEvent]:
    """Mark the events (newest first) whose object a newer event deleted, and those linking to its screen,
    so the feed says "deleted" instead of leading to a 404. No further read: a delete is newer than every
    event about its object, so it is itself among the events shown."""
    gone = {(e.app, e.entity, e.object_id) for e in events if e.gone}
    gone_links = {e.link for e in events if e.link and (e.app, e.entity, e.object_id) in gone}
    return [
        replace(e, deleted=True)
        if not e.gone and ((e.app, e.entity, e.object_id) in gone or e.link in gone_links)
        else e
        for e in events
    ]


def health() -> dict:
    """Status for /healthz in one round trip (on a cluster, one wave to every primary)."""
    if on_cluster():
        redis_cluster = client()
        primaries = redis_cluster.primaries()
        calls = [(primaries[0], ("INFO", "server"))]
        calls += [(node, args) for node in primaries for args in (("INFO", "memory"), ("DBSIZE",))]
        server, *each = redis_cluster.on_nodes(calls)
    else:
        pipe = client().pipeline(transaction=False)
        pipe.info("server").info("memory").dbsize()
        server, *each = pipe.execute()
    memories = each[::2]
    memory = sum(int(info["used_memory"]) for info in memories)
    policy = _worst_policy(info.get("maxmemory_policy") for info in memories)
    _remember_policy(policy)
    human = memories[0]["used_memory_human"] if len(memories) == 1 else f"{memory / 2**20:.2f}M"
    return {
        "version": server["redis_version"],
        "used_memory": memory,
        "used_memory_human": human,
        "keys": sum(each[1::2]),
        "maxmemory_policy": policy,
    }


# Redis's eviction policy, read at most every EVICTION_CHECK_SECONDS per process: (when read, policy).
_policy_seen: tuple[float, str | None] = (float("-inf"), None)
SAFE_POLICY = "noeviction"


def _worst_policy(policies: Iterable[str | None]) -> str | None:
    """The first policy that can evict keys, else the safe one if any node told it."""
    told = [p.decode() if isinstance(p, bytes) else p for p in policies if p]
    return next((p for p in told if p != SAFE_POLICY), told[0] if told else None)


def _remember_policy(policy: str | None) -> None:
    global _policy_seen
    _policy_seen = (time.monotonic(), policy)


def maxmemory_policy(max_age: float | None = None) -> str | None:
    """Redis's ``maxmemory-policy`` (on a cluster, the first that can evict) or None, read again past
    ``max_age`` seconds (``EVICTION_CHECK_SECONDS``) by INFO memory (managed Redis refuses CONFIG GET)."""
    at, policy = _policy_seen
    age = settings.EVICTION_CHECK_SECONDS if max_age is None else max_age
    if time.monotonic() - at < age:
        return policy
    redis_client = client()
    if on_cluster():
        replies = redis_client.on_nodes([(node, ("INFO", "memory")) for node in redis_client.primaries()])
    else:
        replies = [redis_client.info("memory")]
    policy = _worst_policy(info.get("maxmemory_policy") for info in replies)
    _remember_policy(policy)
    return policy


def evicting_policy(max_age: float | None = None) -> str | None:
    """The policy when it lets Redis evict keys (silently dropping records and index entries), else None."""
    policy = maxmemory_policy(max_age)
    return policy if policy and policy != SAFE_POLICY else None


def ping() -> bool:
    return bool(client().ping())


def seed_marker() -> dict[str, str]:
    return client().hgetall(keys.seed_marker())


def set_seed_marker(scale: str, apps: list[str], at: datetime) -> None:
    """What was seeded, and when."""
    mapping = {"scale": scale, "apps": ",".join(apps), "at": at.isoformat()}
    client().hset(keys.seed_marker(), mapping=mapping)


def glob_escape(text: str) -> str:
    """``text`` as a literal inside a SCAN MATCH glob."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def scan_prefix(prefix: str, count: int = 1000):
    """Every key under ``prefix``, by SCAN (never KEYS)."""
    yield from client().scan_iter(match=glob_escape(prefix) + "*", count=count)


def scan_ids(match: str, kind: str = "hash", count: int = 1000) -> Iterator[int]:
    """The ids of the keys of type ``kind`` matching ``match`` (``*`` for the id, last), by SCAN."""
    for key in client().scan_iter(match=match, count=count, _type=kind):
        tail = key.rsplit(":", 1)[1]
        if tail.isdigit():
            yield int(tail)


def holds_prefix(prefix: str) -> bool:
    """Whether any key lies under ``prefix``: SCAN stops at the first one found."""
    return next(scan_prefix(prefix), None) is not None


def delete_prefix(prefix: str, batch: int = 1000) -> int:
    """UNLINK every key under ``prefix``, one a key (on a cluster, each to its node); returns how many."""
    return sum(
        sum(pipelined(chunk, lambda pipe, key: pipe.unlink(key))) for chunk in batched(scan_prefix(prefix), batch)
    )


# --- integrity reads and repairs (see config/core_integrity.py) ---------------------


def events_lengths() -> dict[str, int]:
    """Each activity stream's length, by key."""
    streams = keys.event_streams()
    return dict(zip(streams, pipelined(streams, lambda pipe, stream: pipe.xlen(stream))))


def trim_events() -> None:
    pipelined(
        keys.event_streams(), lambda pipe, stream: pipe.xtrim(stream, maxlen=settings.EVENTS_MAXLEN, approximate=False)
    )
