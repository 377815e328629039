"""Whole pages through Django's test client, each beside its floor.

A staff user is signed in with ``force_login`` (its session lives in the
scratch Redis, like every key here). For each page, one fetch records the
exact commands it sends to the domain's Redis, round trip by round trip; the
page's floor is a plain view, behind the same middleware and login, that
sends those same round trips and returns a few bytes. The page and its floor
are then fetched in turn, ``runs`` times each: the page's time over the
floor's is what the view, its forms and its templates cost. The time is the
server's, in process (the test client calls the WSGI handler directly).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from unittest import mock
from urllib.parse import quote

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import Group
from django.http import HttpResponse
from django.test import Client
from django.test.utils import override_settings
from django.urls import include, path

from config import collector, trace
from config.benchmark.runner import Timing
from config.redis import raw_client

USERNAME = "benchmark-staff"
FLOOR_PATH = "/benchmark-floor/"
_recorded: dict[str, list[tuple[str, list[tuple]]]] = {}  # page name -> [(kind, [args ...])] of its data round trips


@dataclass
class PageResult:
    app: str
    kind: str  # "list", "detail" ...
    path: str
    total: Timing = field(default_factory=Timing)
    redis: Timing = field(default_factory=Timing)  # the domain round trips' own time, per fetch
    floor: Timing = field(default_factory=Timing)  # the plain view sending the same round trips
    round_trips: int = 0

    @property
    def rest_ms(self) -> float:
        return self.total.median_ms - self.redis.median_ms

    @property
    def over_floor(self) -> float:
        return self.total.median_ms / self.floor.median_ms if self.floor.median_ms else 0.0


@login_required
def floor_view(request, name: str):
    """Send the recorded round trips of page ``name``, as they were, and answer a few bytes."""
    redis = raw_client()  # replies as bytes: a page may read binary values (the sensor buckets)
    for kind, commands in _recorded[name]:
        if kind == "command":
            redis.execute_command(*commands[0])
            continue
        pipe = redis.pipeline(transaction=kind == "transaction")
        for args in commands:
            pipe.execute_command(*args)
        pipe.execute()
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [path(f"{FLOOR_PATH.strip('/')}/<str:name>/", floor_view), path("", include("config.urls"))]


@contextmanager
def capturing():
    """The raw arguments of every command the traced clients send, in order (the trace keeps them cut)."""
    seen: list[tuple] = []
    original = trace.Command.of.__func__

    def of(cls, args):
        seen.append(tuple(args))
        return original(cls, args)

    with mock.patch.object(trace.Command, "of", classmethod(of)):
        yield seen


def record(browser: Client, name: str, page_path: str) -> int:
    """Fetch the page once, keeping its data round trips' exact commands for its floor; their count."""
    with capturing() as seen, trace.recording() as recorded:
        response = browser.get(page_path, secure=True)
    if response.status_code != 200:
        raise AssertionError(f"{page_path} answered {response.status_code}, not 200")
    trips, position = [], 0
    for trip in recorded.round_trips:
        args = seen[position : position + len(trip.commands)]
        position += len(trip.commands)
        if trip.origin != "data":
            continue
        if trip.kind == "transaction":
            args = [a for a in args if str(a[0]).upper() not in {"MULTI", "EXEC"}]
        trips.append((trip.kind, args))
    _recorded[name] = trips
    return len(trips)


def signed_in_client() -> Client:
    user, _ = get_user_model().objects.get_or_create(username=USERNAME, defaults={"is_staff": True})
    user.groups.add(Group.objects.get(name="administrator"))  # every screen, the key browser's too
    browser = Client()
    browser.force_login(user)
    return browser


def _fetch(browser: Client, page_path: str) -> tuple[float, float]:
    with trace.recording() as recorded:
        started = time.perf_counter()
        response = browser.get(page_path, secure=True)
        took = time.perf_counter() - started
    if response.status_code != 200:
        raise AssertionError(f"{page_path} answered {response.status_code}, not 200")
    return took, sum(t.ms for t in recorded.trips("data")) / 1000


def key_browser_pages(apps: list[str]) -> list[tuple[str, str, str]]:
    """The key browser's list page, and the page of one document key: of the first of ``apps`` with a
    document pattern (a hash with a screen of its own, registered first), one key Redis holds."""
    from config.keyspace import keyspace
    from config.redis import client
    from config.store import glob_escape

    found = [("keys", "list", "/keys/")]
    for app in apps:
        documents = [p for p in keyspace.patterns if p.app == app and p.type == "hash" and p.url]
        if not documents:
            continue
        pattern = documents[0]
        glob = ":".join(s if s == "*" else glob_escape(s) for s in pattern.segments)
        key = next((k for k in client().scan_iter(match=glob, count=1000) if pattern.matches(k)), None)
        if key is not None:
            found.append(("keys", "key", f"/keys/?key={quote(key, safe=':')}"))
            break
    return found


def time_pages(pages: list[tuple[str, str, str]], runs: int) -> list[PageResult]:
    """Each (app, kind, path), fetched ``runs`` times in turn with its floor."""
    # The collector as a served worker has it (config/wsgi.py, config/collector.py): what was loaded
    # before the requests is frozen out of its reach (here the benchmark's own data sets, which no
    # worker holds, would otherwise make its full passes scan millions of objects in the middle of
    # a page), and the youngest generation is collected as seldom as there.
    with collector.serving():
        return _time_pages(pages, runs)


def _time_pages(pages: list[tuple[str, str, str]], runs: int) -> list[PageResult]:
    results = []
    with override_settings(ROOT_URLCONF=__name__):
        browser = signed_in_client()
        for app, kind, page_path in pages:
            name = f"{app}-{kind}"
            browser.get(page_path, secure=True)  # a first fetch: imports, template loading, URL resolver caches
            result = PageResult(app, kind, page_path, round_trips=record(browser, name, page_path))
            floor_path = f"{FLOOR_PATH}{name}/"
            browser.get(floor_path, secure=True)
            for n in range(runs):
                for which in ("page", "floor") if n % 2 == 0 else ("floor", "page"):
                    if which == "page":
                        took, redis_seconds = _fetch(browser, page_path)
                        result.total.samples.append(took)
                        result.redis.samples.append(redis_seconds)
                    else:
                        result.floor.samples.append(_fetch(browser, floor_path)[0])
            results.append(result)
    return results
