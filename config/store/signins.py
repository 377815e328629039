"""Sign-ins in Redis: the recent list and counts (the Redis login-system tutorial), the sliding windows
of failed sign-ins that rate-limit them (``lua/signin_*.lua``), their integrity reads and repairs."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from config import keys
from config.activity import Actor, SignIn
from config.redis import client
from config.store import _signin, scan_prefix
from config.store.scripts import lua, run_script

_TAKE_ATTEMPT = lua(__file__, "signin_attempt")


_RECORD_FAILURE = lua(__file__, "signin_failure")


@dataclass(frozen=True)
class Attempt:
    """A sign-in attempt that holds a slot in the failure windows."""

    user_key: str  # the username's window from this address
    address_key: str  # the address's window, whatever the username
    member: str
    retry_after: float  # seconds until the window frees a slot; 0 when allowed

    @property
    def allowed(self) -> bool:
        return self.retry_after == 0


def take_signin_attempt(username: str, address: str, now: float | None = None) -> Attempt:
    """A slot in the window of ``username`` from ``address`` and in the window of ``address`` (a higher
    limit: colleagues share an address). Failures from one address never lock the username out elsewhere."""
    now_ms = int((time.time() if now is None else now) * 1000)
    user_key, address_key = keys.failed_signins_user(username, address), keys.failed_signins_address(address)
    member = f"{now_ms}-{uuid.uuid4().hex[:12]}"
    window_ms = settings.SIGNIN_FAILURE_WINDOW * 1000
    args = [now_ms, window_ms, member, settings.SIGNIN_FAILURE_LIMIT, settings.SIGNIN_ADDRESS_FAILURE_LIMIT]
    wait_ms = run_script(_TAKE_ATTEMPT, [user_key, address_key], args)
    return Attempt(user_key, address_key, member, int(wait_ms) / 1000)


def release_signin_attempt(attempt: Attempt) -> None:
    """The password was right: the user's failures from this address are forgiven (not the address's)."""
    pipe = client().pipeline(transaction=True)
    pipe.delete(attempt.user_key)
    pipe.zrem(attempt.address_key, attempt.member)
    pipe.execute()


def record_failed_signin(attempt: Attempt | None, username: str, address: str, at: datetime) -> bool:
    """A failed sign-in: wrong password (``attempt`` holds its slot), or refused (None). Returns whether
    it locked the username out from this address (the lock-out is then in the activity stream)."""
    refused = attempt is None or not attempt.allowed
    entry = json.dumps({"user": username[:150], "addr": address, "at": at.timestamp(), "refused": refused})
    limit = settings.SIGNIN_FAILURE_LIMIT
    event = Actor("sign-in limit").event(
        "locked out",
        "core",
        "account",
        username[:150],
        f"{username[:150]} from {address} after {limit} failed sign-ins",
    )
    fields = [part for pair in event.fields().items() for part in pair]
    user_key = attempt.user_key if attempt else keys.failed_signins_user(username, address)
    locked = run_script(
        _RECORD_FAILURE,
        [user_key, keys.signins_failed(), keys.SIGNIN_EVENTS],
        [entry, settings.SIGNINS_KEPT, limit, settings.EVENTS_MAXLEN, "0" if refused else "1", *fields],
    )
    return bool(locked)


def record_signin(username: str, address: str, at: datetime) -> None:
    """The Redis login-system tutorial: a capped list of recent sign-ins and a count per user."""
    entry = json.dumps({"user": username, "addr": address, "at": at.timestamp()})
    pipe = client().pipeline(transaction=True)
    pipe.lpush(keys.signins_recent(), entry)
    pipe.ltrim(keys.signins_recent(), 0, settings.SIGNINS_KEPT - 1)
    pipe.zincrby(keys.signins_count(), 1, username)
    pipe.execute()


def signin_records() -> tuple[list[SignIn], dict[str, float], int]:
    """The recent list (whole, it is capped), each listed user's count, and its length."""
    pipe = client().pipeline(transaction=False)
    pipe.lrange(keys.signins_recent(), 0, -1)
    pipe.llen(keys.signins_recent())
    recent_raw, length = pipe.execute()
    recent = [_signin(raw) for raw in recent_raw]
    users = sorted({s.username for s in recent})
    scores = client().zmscore(keys.signins_count(), users) if users else []
    return recent, dict(zip(users, (s or 0 for s in scores))), length


def trim_signins() -> None:
    client().ltrim(keys.signins_recent(), 0, settings.SIGNINS_KEPT - 1)


def raise_signin_counts(floors: dict[str, int]) -> None:
    """Raise counts to at least the given floors (ZADD GT never lowers one)."""
    if floors:
        client().zadd(keys.signins_count(), floors, gt=True)


def failure_windows() -> list[tuple[str, int, int]]:
    """(key, members, ttl in ms) for every failed-sign-in window."""
    found = list(scan_prefix(keys.FAILURE_WINDOWS))
    pipe = client().pipeline(transaction=False)
    for key in found:
        pipe.zcard(key)
        pipe.pttl(key)
    replies = pipe.execute() if found else []
    return [(key, replies[2 * i], replies[2 * i + 1]) for i, key in enumerate(found)]


def expire_window(key: str) -> None:
    client().pexpire(key, settings.SIGNIN_FAILURE_WINDOW * 1000)
