"""Whole pages through Django's test client, each beside two floors.

A staff user is signed in with ``force_login`` (its session lives in the
scratch Redis, like every key here). For each page, one fetch records the
exact commands it sends to the domain's Redis, round trip by round trip. Both
floors are views behind the same middleware and login that send those same
round trips:

- the bare floor answers a few bytes: the page's time over it is everything
  the view, its forms, its templates, the layout and the Redis panel cost;
- the plain list page is the issue's floor, "a plain Django list page with the
  same round trips": the replies' values, a page of 25 of them (Django's
  ``Paginator``), in a table of a template that extends the site's layout, as
  a Django team's first list view would show them.

The page and its floors are fetched in turn, ``runs`` times each. The time is
the server's, in process (the test client calls the WSGI handler directly).
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
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.test import Client
from django.test.utils import override_settings
from django.urls import include, path

from config import trace
from config.benchmark.runner import Timing
from config.redis import raw_client

USERNAME = "benchmark-staff"
FLOOR_PATH = "/benchmark-floor/"
PLAIN_PATH = "/benchmark-plain/"
PLAIN_PER_PAGE = 25
_recorded: dict[str, list[tuple[str, list[tuple]]]] = {}  # page name -> [(kind, [args ...])] of its data round trips


@dataclass
class PageResult:
    app: str
    kind: str  # "list", "detail" ...
    path: str
    total: Timing = field(default_factory=Timing)
    redis: Timing = field(default_factory=Timing)  # the domain round trips' own time, per fetch
    floor: Timing = field(default_factory=Timing)  # the bare view sending the same round trips
    plain: Timing = field(default_factory=Timing)  # the plain Django list page of the same round trips
    round_trips: int = 0

    @property
    def rest_ms(self) -> float:
        return self.total.median_ms - self.redis.median_ms

    @property
    def over_floor(self) -> float:
        return self.total.median_ms / self.floor.median_ms if self.floor.median_ms else 0.0

    @property
    def over_plain(self) -> float:
        return self.total.median_ms / self.plain.median_ms if self.plain.median_ms else 0.0


def _send(name: str) -> list:
    """Send the recorded round trips of page ``name``, as they were; their replies."""
    redis = raw_client()  # replies as bytes: a page may read binary values (the sensor buckets)
    replies = []
    for kind, commands in _recorded[name]:
        if kind == "command":
            replies.append(redis.execute_command(*commands[0]))
            continue
        pipe = redis.pipeline(transaction=kind == "transaction")
        for args in commands:
            pipe.execute_command(*args)
        replies.extend(pipe.execute())
    return replies


def _values(reply) -> list[str]:
    """A reply's leaf values, in order, as text: what a plain list page would list."""
    if isinstance(reply, list | tuple):
        return [value for item in reply for value in _values(item)]
    if isinstance(reply, dict):
        return [value for pair in reply.items() for value in _values(list(pair))]
    if isinstance(reply, bytes):
        return [reply.decode("utf-8", "replace")]
    return [] if reply is None else [str(reply)]


@login_required
def floor_view(request, name: str):
    """The bare floor: send the page's round trips and answer a few bytes."""
    _send(name)
    return HttpResponse(b"ok", content_type="text/plain")


@login_required
def plain_list_view(request, name: str):
    """The plain list page: the page's round trips, then a page of their values in the site's layout."""
    values = [value for reply in _send(name) for value in _values(reply)]
    page = Paginator(values, PLAIN_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "benchmark/plain_list.html", {"name": name, "page_obj": page})


urlpatterns = [
    path(f"{FLOOR_PATH.strip('/')}/<str:name>/", floor_view),
    path(f"{PLAIN_PATH.strip('/')}/<str:name>/", plain_list_view),
    path("", include("config.urls")),
]


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


def site_pages() -> list[tuple[str, str, str]]:
    """The pages of no one app: the dashboard, the first page after sign-in."""
    return [("site", "dashboard", "/")]


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
    results = []
    with override_settings(ROOT_URLCONF=__name__):
        browser = signed_in_client()
        for app, kind, page_path in pages:
            name = f"{app}-{kind}"
            browser.get(page_path, secure=True)  # a first fetch: imports, template loading, URL resolver caches
            result = PageResult(app, kind, page_path, round_trips=record(browser, name, page_path))
            floors = {"floor": f"{FLOOR_PATH}{name}/", "plain": f"{PLAIN_PATH}{name}/"}
            for floor_path in floors.values():
                browser.get(floor_path, secure=True)
            order = ("page", "floor", "plain")
            for n in range(runs):
                for which in order[n % 3 :] + order[: n % 3]:  # each first in turn
                    if which == "page":
                        took, redis_seconds = _fetch(browser, page_path)
                        result.total.samples.append(took)
                        result.redis.samples.append(redis_seconds)
                    else:
                        getattr(result, which).samples.append(_fetch(browser, floors[which])[0])
            results.append(result)
    return results
