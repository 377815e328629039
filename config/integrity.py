"""Invariants of the cross-cutting data: sign-in records, event log, rate windows."""

from collections import Counter

from django.conf import settings

from config import keys, store
from config.invariants import Violation, invariant


@invariant("core", "recent sign-ins list is capped", repair=store.trim_signins)
def signins_capped():
    _, _, length = store.signin_records()
    if length > settings.SIGNINS_KEPT:
        yield Violation(f"{length} recent sign-ins kept, cap is {settings.SIGNINS_KEPT}", [keys.signins_recent()])


@invariant("core", "each user's sign-in count covers their recent sign-ins")
def signin_counts_cover_list():
    recent, counts, _ = store.signin_records()
    for user, listed in Counter(s.username for s in recent).items():
        if counts.get(user, 0) < listed:
            yield Violation(
                f"{user!r} appears {listed} times in recent sign-ins but has a count of {counts.get(user, 0):g}",
                [keys.signins_recent(), keys.signins_count()],
            )


@invariant("core", "event stream is capped", repair=store.trim_events)
def events_capped():
    length = store.events_length()
    if length > settings.EVENTS_MAXLEN:
        yield Violation(f"{length} events kept, cap is {settings.EVENTS_MAXLEN}", [keys.events()])


def _expire_windows():
    for key, _, ttl in store.failure_windows():
        if ttl < 0:
            store.expire_window(key)


@invariant("core", "failed sign-in windows expire and never exceed the limit", repair=_expire_windows)
def failure_windows_bounded():
    for key, members, ttl in store.failure_windows():
        if ttl < 0:
            yield Violation(f"{key} has no TTL", [key])
        if members > settings.SIGNIN_FAILURE_LIMIT:
            yield Violation(f"{key} holds {members} failures, limit is {settings.SIGNIN_FAILURE_LIMIT}", [key])
