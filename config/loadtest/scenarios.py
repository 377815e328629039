"""Scenarios: one app's simulated user each, registered per app (``@scenario``), and the core one."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import unescape

from config import keys
from config.loadtest.http import Http, Sample, Unavailable
from config.loadtest.ledger import Ledger


class Scenario:
    """One app's user, driven by one client. Subclasses define ``setup`` and ``step``."""

    app = ""
    weight = 1

    def __init__(self, http: Http, ledger: Ledger, rng: random.Random, worker: int):
        self.http, self.ledger, self.rng, self.worker = http, ledger, rng, worker

    def setup(self) -> None:
        """Once, before the clock starts: find what to work on."""

    def step(self) -> None:
        raise NotImplementedError

    def ack(self, key: tuple, what: str, check: Callable[[], bool], replaces: tuple = ()) -> None:
        self.ledger.ack(self.app, key, what, check, replaces)

    def refused(self, why: str) -> None:
        """A write the app refused with a clear answer, writing nothing (an edit conflict): no error."""
        self.http.stats.refused[f"{self.app}: {why}"] += 1

    @contextmanager
    def in_flight(self, prefix: tuple, check_after: Callable[[], bool] = lambda: False, forget=lambda: None):
        """Around a write's POST: if it meets an outage, the object is in doubt and the client forgets it.

        ``check_after`` is true of the object if the write was applied; the
        default (never) suits a write that leaves the earlier expectations
        true either way (a new CMS version keeps the older ones).
        """
        try:
            yield
        except Unavailable:
            self.ledger.in_doubt(self.app, prefix, check_after)
            forget()
            raise

    def direct(self, fn: Callable[[], object]) -> object:
        """A write straight through the app's store, for data no screen writes (a sensor feed).

        Timed and counted apart from the HTTP requests; a Redis error while a
        fault is injected is the outage (as the pages answer 503 for any: a
        cluster that has lost a primary says CLUSTERDOWN until its replica is
        promoted), any other is an error.
        """
        import redis

        started = time.monotonic()
        try:
            result = fn()
        except redis.RedisError as error:
            self.http.stats.samples.append(Sample(self.app, "STORE", 0, started, time.monotonic() - started))
            if self.http.faults.overlaps(started, time.monotonic()):
                self.http.stats.unavailable += 1
                raise Unavailable("store") from None
            raise self.http._fail(f"{self.app} store write: {type(error).__name__}: {error}") from None
        self.http.stats.samples.append(Sample(self.app, "STORE", 200, started, time.monotonic() - started))
        return result

    def token(self) -> str:
        """A string no other write of this run has: ties a stored value to the write that made it."""
        self.worker_seq = getattr(self, "worker_seq", 0) + 1
        return f"lt{self.worker}x{self.worker_seq}x{self.rng.randrange(10**6)}"


@dataclass
class Registry:
    scenarios: dict[str, type[Scenario]] = field(default_factory=dict)

    def add(self, app: str, weight: int = 1):
        def decorate(cls: type[Scenario]) -> type[Scenario]:
            cls.app, cls.weight = app, weight
            self.scenarios[app] = cls
            return cls

        return decorate


registry = Registry()
scenario = registry.add


def ids_in(html: str, prefix: str) -> list[int]:
    """The ids of the links ``prefix<id>/`` on a page (a list page's rows)."""
    return sorted({int(m) for m in re.findall(re.escape(prefix) + r"(\d+)/", html)})


def text_of(html: str) -> str:
    return unescape(html)


@scenario("core", weight=1)
class Dashboard(Scenario):
    """The dashboard (sign-ins, activity) and the key browser: reads only, as the key browser has no writes."""

    def step(self) -> None:
        roll = self.rng.random()
        if roll < 0.3:
            page = self.http.get("/")
            behind = re.search(r'href="(/keys/behind/\?t=[^"]+)"', page.text)
            if behind and self.rng.random() < 0.5:  # the keys behind the page just seen
                self.http.get(unescape(behind.group(1)))
        elif roll < 0.55:
            pattern = self.rng.choice(["cms:*", "catalog:*", "orgchart:*", "core:*", "*"])
            self.http.get("/keys/", {"pattern": pattern})
        elif roll < 0.75:
            key = self.rng.choice(keys.event_streams())  # every app writes into one
            self.http.get("/keys/", {"key": key})
        else:
            self.http.get(self.rng.choice(["/keys/tree/", "/keys/registry/", "/keys/orphans/"]))
