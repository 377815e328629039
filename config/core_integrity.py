"""Invariants of the core data (sign-ins, event log, rate windows), the dashboard's own
integrity checks; ``config.invariants`` is the registry that every app's checks join."""

from collections import Counter

from django.conf import settings

from config import keys, store
from config.invariants import Violation, invariant
from config.store import signins


@invariant("core", "recent sign-ins list is capped", repair=signins.trim_signins)
def signins_capped():
    _, _, length = signins.signin_records()
    if length > settings.SIGNINS_KEPT:
        yield Violation(f"{length} recent sign-ins kept, cap is {settings.SIGNINS_KEPT}", [keys.signins_recent()])


def _short_counts():
    recent, counts, _ = signins.signin_records()
    listed = Counter(s.username for s in recent)
    return {user: (n, counts.get(user, 0)) for user, n in listed.items() if counts.get(user, 0) < n}


def _raise_counts():
    """The list is capped, so it cannot give the true count, only a floor."""
    signins.raise_signin_counts({user: listed for user, (listed, _) in _short_counts().items()})


@invariant("core", "each user's sign-in count covers their recent sign-ins", repair=_raise_counts)
def signin_counts_cover_list():
    for user, (listed, count) in _short_counts().items():
        yield Violation(
            f"{user!r} appears {listed} times in recent sign-ins but has a count of {count:g}",
            [keys.signins_recent(), keys.signins_count()],
        )


@invariant("core", "every event stream is capped", repair=store.trim_events)
def events_capped():
    for stream, length in store.events_lengths().items():
        if length > settings.EVENTS_MAXLEN:
            yield Violation(f"{length} events kept in {stream}, cap is {settings.EVENTS_MAXLEN}", [stream])


def _expire_windows():
    for key, _, ttl in signins.failure_windows():
        if ttl < 0:
            signins.expire_window(key)


@invariant("core", "failed sign-in windows expire and never exceed the limit", repair=_expire_windows)
def failure_windows_bounded():
    per_address = keys.failed_signins_address("")
    for key, members, ttl in signins.failure_windows():
        if ttl < 0:
            yield Violation(f"{key} has no TTL", [key])
        limit = settings.SIGNIN_ADDRESS_FAILURE_LIMIT if key.startswith(per_address) else settings.SIGNIN_FAILURE_LIMIT
        if members > limit:
            yield Violation(f"{key} holds {members} failures, limit is {limit}", [key])
