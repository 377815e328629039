"""Whole pages through Django's test client, so the template cost shows beside the data cost.

A staff user is signed in with ``force_login`` (its session lives in the
scratch Redis, like every key here). Each page is fetched ``runs`` times; the
trace splits each fetch's time into what the domain's Redis round trips took
and the rest (view, template, middleware, the session load).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from config import trace
from config.benchmark.runner import Timing

USERNAME = "benchmark-staff"


@dataclass
class PageResult:
    app: str
    kind: str  # "list" or "detail"
    path: str
    total: Timing = field(default_factory=Timing)
    redis: Timing = field(default_factory=Timing)  # the domain round trips' own time, per fetch
    round_trips: int = 0

    @property
    def rest_ms(self) -> float:
        return self.total.median_ms - self.redis.median_ms


def signed_in_client() -> Client:
    user, _ = get_user_model().objects.get_or_create(username=USERNAME, defaults={"is_staff": True})
    user.groups.add(Group.objects.get(name="administrator"))  # every screen, the key browser's too
    client = Client()
    client.force_login(user)
    return client


def fetch(client: Client, app: str, kind: str, path: str, runs: int) -> PageResult:
    result = PageResult(app, kind, path)
    for _ in range(runs):
        with trace.recording() as recorded:
            started = time.perf_counter()
            response = client.get(path, secure=True)
            took = time.perf_counter() - started
        if response.status_code != 200:
            raise AssertionError(f"{path} answered {response.status_code}, not 200")
        result.total.samples.append(took)
        result.redis.samples.append(sum(t.ms for t in recorded.trips("data")) / 1000)
        result.round_trips = recorded.round_trip_count("data")
    return result


def time_pages(pages: list[tuple[str, str, str]], runs: int) -> list[PageResult]:
    client = signed_in_client()
    for _, _, path in pages:  # a first fetch each: imports, template loading, URL resolver caches
        client.get(path, secure=True)
    return [fetch(client, app, kind, path, runs) for app, kind, path in pages]
