"""The load test's machinery: scenarios registered per app, HTTP clients, the ledger of writes.

An app's ``loadtest.py`` registers one scenario class, autodiscovered like ``seeds``:

    @scenario("cms", weight=3)
    class Posts(Scenario):
        def setup(self): ...           # once per client, after sign-in: find sample ids
        def step(self): ...            # one user action: GET pages, POST forms

A step talks to the server only through ``self.http`` (a signed-in client with
its own session and CSRF token) and records each acknowledged write with
``self.ledger.ack(key, what, check)``: ``check()`` runs after the load,
against Redis through the app's store, and is true when the write is there. A
later write of the same ``key`` (a delete after an add) replaces the earlier
expectation, so the ledger holds what the final state must show.

``manage.py loadtest`` (``config/management/commands/loadtest.py``) runs them
against gunicorn on loopback, on a scratch Redis of its own.
"""

from __future__ import annotations

import http.client
import math
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from urllib.parse import urlencode, urlsplit

# --- HTML forms ------------------------------------------------------------------


@dataclass
class Form:
    """A form as the browser would submit it: its action, method and default values."""

    action: str
    method: str
    fields: dict[str, str] = field(default_factory=dict)
    text_fields: list[str] = field(default_factory=list)  # free-text inputs and textareas
    choices: dict[str, list[str]] = field(default_factory=dict)  # select name -> option values


class _FormParser(HTMLParser):
    TEXT_TYPES = {"text", "search", "email", "url", "tel", "password", "number", ""}

    def __init__(self, page_path: str):
        super().__init__(convert_charrefs=True)
        self.page_path = page_path
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._form = Form(a.get("action") or self.page_path, (a.get("method") or "get").lower())
            self.forms.append(self._form)
        elif tag == "option" and self._form is not None and self._select:
            value = a.get("value", "")
            self._form.choices[self._select].append(value)
            if "selected" in a or not self._form.fields[self._select]:
                self._form.fields[self._select] = value
        elif self._form is None or "name" not in a:
            return
        elif tag == "input":
            kind = a.get("type", "").lower()
            if kind in {"submit", "button", "image", "reset", "file"}:
                return
            if kind in {"checkbox", "radio"} and "checked" not in a:
                return
            self._form.fields[a["name"]] = a.get("value", "on" if kind in {"checkbox", "radio"} else "")
            if kind in self.TEXT_TYPES and kind != "number":
                self._form.text_fields.append(a["name"])
        elif tag == "textarea":
            self._textarea = a["name"]
            self._form.fields[a["name"]] = ""
            self._form.text_fields.append(a["name"])
        elif tag == "select":
            self._select = a["name"]
            self._form.choices[a["name"]] = []
            self._form.fields.setdefault(a["name"], "")

    def handle_data(self, data):
        if self._form is not None and self._textarea:
            self._form.fields[self._textarea] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None


def forms(html: str, page_path: str = "") -> list[Form]:
    """Every form of a page, with the values a browser would send unchanged."""
    parser = _FormParser(page_path)
    parser.feed(html)
    return parser.forms


def post_forms(html: str, page_path: str = "") -> list[Form]:
    return [f for f in forms(html, page_path) if f.method == "post"]


# --- HTTP clients and what they measured -----------------------------------------


class Failed(Exception):
    """A response the scenario did not expect: counted as an error."""


class Unavailable(Exception):
    """A 503 page while a fault was injected on purpose: expected, counted apart."""


@dataclass
class Sample:
    app: str
    method: str
    status: int
    started: float
    seconds: float


@dataclass
class Stats:
    """Every request of one client; merged at the end."""

    samples: list[Sample] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unavailable: int = 0  # 503 pages during an injected fault
    refused: Counter = field(default_factory=Counter)  # "app: why" -> writes refused cleanly under contention


class Faults:
    """When Redis was down on purpose: a 503 that overlaps that window is expected."""

    def __init__(self):
        self.windows: list[list[float]] = []  # [start, end] in monotonic time; end is inf while open
        self.lock = threading.Lock()

    def open(self) -> None:
        with self.lock:
            self.windows.append([time.monotonic(), float("inf")])

    def close(self) -> None:
        with self.lock:
            self.windows[-1][1] = time.monotonic()

    def overlaps(self, start: float, end: float) -> bool:
        with self.lock:
            return any(start <= stop and end >= begin for begin, stop in self.windows)


UNAVAILABLE_MARKERS = ("Redis is unreachable", "Redis is unavailable", "Redis did not answer")


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    text: str
    path: str

    @property
    def location(self) -> str:
        return urlsplit(self.headers.get("location", "")).path

    def post_forms(self) -> list[Form]:
        return post_forms(self.text, self.path)


class Http:
    """A signed-in browser of one staff user: keep-alive connection, cookies, CSRF token from forms."""

    def __init__(self, host: str, port: int, session_cookie: tuple[str, str], stats: Stats, faults: Faults):
        self.host, self.port = host, port
        self.cookies = dict([session_cookie])
        self.stats, self.faults = stats, faults
        self.csrf = ""
        self.app = "core"  # the scenario on whose behalf requests go out, for the per-app tally
        self._conn: http.client.HTTPConnection | None = None

    def get(self, path: str, params: dict | None = None, expect=(200,)) -> Response:
        if params:
            path = f"{path}?{urlencode(params)}"
        return self.request("GET", path, None, expect)

    def post(self, path: str, data: dict | None = None, expect=(302,)) -> Response:
        body = dict(data or {})
        body.setdefault("csrfmiddlewaretoken", self.csrf)
        return self.request("POST", path, body, expect)

    def request(self, method: str, path: str, data: dict | None, expect) -> Response:
        headers = {"Host": f"{self.host}:{self.port}", "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if data is not None:
            body = urlencode(data).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.monotonic()
        try:
            status, reply_headers, raw = self._send(method, path, body, headers)
        except (OSError, http.client.HTTPException) as error:
            self._record(method, 0, started)
            raise self._fail(f"{method} {path}: {type(error).__name__}: {error}") from None
        self._record(method, status, started)
        response = Response(status, reply_headers, raw.decode("utf-8", "replace"), path)
        self._keep_cookies(reply_headers.get("set-cookie", ""))
        if status == 503 and self.faults.overlaps(started, time.monotonic()):
            if not any(marker in response.text for marker in UNAVAILABLE_MARKERS) or "Traceback" in response.text:
                raise self._fail(f"{method} {path}: a 503 that is not the Redis-unavailable page")
            self.stats.unavailable += 1
            raise Unavailable(path)
        if status not in expect:
            said = re.findall(r'class="(?:field-error|errors)"[^>]*>(.*?)</', response.text, re.S)[:3]
            said += re.findall(r"<h1>(.*?)</h1>\s*<p>(.*?)</p>", response.text, re.S)[:1] if status >= 500 else []
            said = [" ".join(s) if isinstance(s, tuple) else s for s in said]
            said = f" ({'; '.join(unescape(s.strip()) for s in said)})" if said else ""
            raise self._fail(f"{method} {path}: {status}, expected {'/'.join(map(str, expect))}{said}")
        if "csrfmiddlewaretoken" in response.text:
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.text)
            if token:
                self.csrf = token.group(1)
        return response

    def _send(self, method, path, body, headers):
        for attempt in (0, 1):  # a keep-alive connection the server closed is re-opened once
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                self._conn.request(method, path, body=body, headers=headers)
                reply = self._conn.getresponse()
                raw = reply.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()
                if attempt:
                    raise
                continue
            collected: dict[str, str] = {}
            for name, value in reply.getheaders():
                name = name.lower()
                collected[name] = f"{collected[name]}\n{value}" if name in collected else value
            if reply.will_close:
                self.close()
            return reply.status, collected, raw
        raise AssertionError("unreachable")

    def _keep_cookies(self, set_cookie: str) -> None:
        for line in filter(None, set_cookie.split("\n")):
            name, _, rest = line.partition("=")
            value = rest.split(";", 1)[0]
            if value in {"", '""'} or "max-age=0" in line.lower():
                self.cookies.pop(name.strip(), None)
            else:
                self.cookies[name.strip()] = value

    def _record(self, method: str, status: int, started: float) -> None:
        self.stats.samples.append(Sample(self.app, method, status, started, time.monotonic() - started))

    def _fail(self, message: str) -> Failed:
        self.stats.errors.append(message)
        return Failed(message)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


# --- the ledger of acknowledged writes ------------------------------------------------


@dataclass
class Expectation:
    app: str
    what: str
    at: float  # monotonic time of the acknowledgement
    check: Callable[[], bool]


@dataclass
class Ledger:
    """The writes the server acknowledged (a redirect after a POST), and how to find each in Redis."""

    acknowledged: Counter = field(default_factory=Counter)  # per app
    expected: dict[tuple, Expectation] = field(default_factory=dict)
    last_ack: float = 0.0
    doubtful: int = 0  # writes that met an outage: applied or not, nobody can tell

    def ack(self, app: str, key: tuple, what: str, check: Callable[[], bool], replaces: tuple = ()) -> None:
        """Record a write; ``replaces`` is a key prefix whose expectations it supersedes (a delete)."""
        self.last_ack = time.monotonic()
        self.acknowledged[app] += 1
        if replaces:
            prefix = (app, *replaces)
            self.expected = {k: e for k, e in self.expected.items() if k[: len(prefix)] != prefix}
        self.expected[(app, *key)] = Expectation(app, what, self.last_ack, check)

    def in_doubt(self, app: str, prefix: tuple, check_after: Callable[[], bool]) -> None:
        """A write to the object under ``prefix`` met the outage: it may or may not have been applied.

        Each expectation of that object then holds if it still holds or if the
        write was applied (``check_after``); the scenario makes no further
        write to the object, so its final state is one of the two.
        """
        self.doubtful += 1
        prefix = (app, *prefix)
        for key, expectation in self.expected.items():
            if key[: len(prefix)] == prefix:
                before = expectation.check
                expectation.check = lambda before=before: before() or check_after()
                expectation.what += " (or the write that met the outage)"


# --- scenarios ----------------------------------------------------------------------


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
        fault is injected is the outage, any other is an error.
        """
        import redis

        started = time.monotonic()
        try:
            result = fn()
        except (redis.ConnectionError, redis.TimeoutError) as error:
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


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, math.ceil(fraction * len(sorted_values)) - 1))  # nearest rank
    return sorted_values[index]


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
            pattern = self.rng.choice(["cms:*", "catalog:product:*", "orgchart:*", "core:*", "*"])
            self.http.get("/keys/", {"pattern": pattern})
        elif roll < 0.75:
            key = self.rng.choice(["core:events", "cms:index:updated", "catalog:product:1", "orgchart:employee:1"])
            self.http.get("/keys/", {"key": key})
        else:
            self.http.get(self.rng.choice(["/keys/tree/", "/keys/registry/", "/keys/orphans/"]))


# --- the run: scratch Redis, gunicorn on loopback, clients, faults, verification -----


@dataclass
class Options:
    seconds: float = 30.0
    clients: int = 16
    port: int = 0  # 0: a free loopback port
    workers: int = 2
    threads: int = 8
    appendfsync: str = "everysec"
    scale: str = "demo"
    kill_redis: bool = False  # SIGKILL the Redis mid-run, restart it from its append-only file
    stop_redis: bool = False  # SHUTDOWN the Redis mid-run, start it again a moment later
    outage: float = 1.5  # seconds Redis stays down in a fault
    fsync_interval: float = 1.0  # what appendfsync everysec may lose, at most, on a crash


@dataclass
class FaultReport:
    kind: str
    at: float  # seconds into the run
    down_for: float
    unavailable: int = 0  # 503 pages served meanwhile
    served_after: int = 0  # successful responses that started after Redis was back
    before_window: int = 0  # writes acknowledged more than one fsync interval before a kill
    in_window: int = 0  # writes acknowledged within the last fsync interval before a kill
    in_window_lost: int = 0  # of those, not found (everysec allows it; SIGKILL of Redis alone rarely does)


@dataclass
class Report:
    options: Options
    port: int = 0
    seconds: float = 0.0
    requests: int = 0
    reads: int = 0
    writes: int = 0
    store_writes: int = 0  # straight through a store, for data no screen writes
    by_app: dict = field(default_factory=dict)  # app -> (requests, acknowledged writes)
    errors: list = field(default_factory=list)
    latencies: list = field(default_factory=list)  # seconds, sorted
    acknowledged: int = 0
    checked: int = 0
    doubtful: int = 0
    lost: list = field(default_factory=list)
    integrity: str = ""
    violations: int = 0
    faults: list = field(default_factory=list)
    server_tracebacks: int = 0
    server_log: str = ""  # the first traceback, when there is one
    refused: Counter = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return not (self.errors or self.lost or self.violations or self.server_tracebacks) and self.requests > 0

    def throughput(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def lines(self) -> list[str]:
        o = self.options
        ms = [1000 * percentile(self.latencies, p) for p in (0.5, 0.95, 0.99)]
        out = [
            f"loadtest: {self.seconds:.1f} s, {o.clients} signed-in clients, gunicorn {o.workers} workers x "
            f"{o.threads} threads on 127.0.0.1:{self.port}, scratch Redis (appendfsync {o.appendfsync})",
            f"requests: {self.requests} ({self.reads} reads, {self.writes} writes), errors: {len(self.errors)}, "
            f"throughput: {self.throughput():.1f} req/s"
            + (f"; plus {self.store_writes} sensor batches written through the store" if self.store_writes else ""),
            f"latency: p50 {ms[0]:.1f} ms, p95 {ms[1]:.1f} ms, p99 {ms[2]:.1f} ms, "
            f"max {1000 * (self.latencies[-1] if self.latencies else 0):.1f} ms",
        ]
        for app, (requests, acked) in sorted(self.by_app.items()):
            out.append(f"  {app}: {requests} requests, {acked} acknowledged writes")
        lost = len(self.lost)
        out.append(
            f"writes acknowledged: {self.acknowledged}; checked in Redis: {self.checked} (the last write of each "
            f"object, and every CMS version); lost: {lost}"
        )
        if self.refused:
            said = ", ".join(f"{why} {n}" for why, n in sorted(self.refused.items()))
            out.append(f"refused under contention (a clear answer, nothing written): {said}")
        if self.doubtful:
            out.append(f"writes answered 503 in an outage (applied or not: either state accepted): {self.doubtful}")
        for fault in self.faults:
            line = (
                f"fault: {fault.kind} at {fault.at:.1f} s, down {fault.down_for:.1f} s: {fault.unavailable} "
                f"requests got the 503 page, {fault.served_after} served after it came back"
            )
            if fault.kind == "kill-redis":
                line += (
                    f"; {fault.before_window} writes acknowledged over {o.fsync_interval:g} s before the kill all "
                    f"survived, {fault.in_window - fault.in_window_lost}/{fault.in_window} within it"
                )
            out.append(line)
        out.append(f"integrity: {self.integrity}")
        out.append(f"server log: {self.server_tracebacks} tracebacks")
        out += [f"ERROR {e}" for e in self.errors[:20]]
        out += [f"LOST {what}" for what in self.lost[:20]]
        if self.server_log:
            out.append(f"first traceback in the server log:\n{self.server_log}")
        out.append("PASS" if self.ok else "FAIL")
        return out


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LoadTest:
    """One run. Everything it starts (Redis, gunicorn) lives in a temporary directory and dies with it."""

    HOST = "127.0.0.1"  # loopback only, whatever the options say

    def __init__(self, options: Options, log: Callable[[str], None] = print):
        self.options, self.log = options, log
        self.faults = Faults()
        self.fault_reports: list[FaultReport] = []
        self.kill_at: float | None = None

    def run(self) -> Report:
        import shutil
        import tempfile
        from pathlib import Path

        from config.redis import EmbeddedRedis

        self.dir = Path(tempfile.mkdtemp(prefix="rdash-load-"))
        self.redis = EmbeddedRedis(self.dir / "redis", self.options.appendfsync)
        self.server = None
        try:
            self.redis.ensure_running()
            self.port = self.options.port or free_port()
            env = self._env()
            sessions = self._prepare(env)
            self._start_server(env)
            from django.test import override_settings

            with override_settings(REDIS_URL=self.redis.url):  # for the scenarios' direct store writes
                report = self._drive(sessions)
            self._stop_server()
            log = (self.dir / "gunicorn.log").read_text(errors="replace")
            report.server_tracebacks = log.count("Traceback")
            if report.server_tracebacks:
                first = log.index("Traceback")
                report.server_log = log[max(0, log.rfind("\n", 0, max(0, first - 200))) : first + 4000]
            self._verify(report)
            return report
        finally:
            self._stop_server()
            self.redis.stop()
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- setting up

    def _env(self) -> dict[str, str]:
        import os
        import secrets

        env = {k: v for k, v in os.environ.items() if k not in {"REDIS_TEST_URL", "DJANGO_SETTINGS_MODULE"}}
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            REDIS_URL=self.redis.url,
            DATABASE_URL=f"sqlite:///{self.dir / 'db.sqlite3'}",
            VAR_DIR=str(self.dir),
            SECRET_KEY=secrets.token_urlsafe(50),
            DEBUG="0",
            ALLOWED_HOSTS=self.HOST,
            # Plain HTTP on loopback: the cookies cannot be Secure-only, nothing redirects to https.
            SESSION_COOKIE_SECURE="0",
            CSRF_COOKIE_SECURE="0",
            SECURE_SSL_REDIRECT="0",
            SECURE_HSTS_SECONDS="0",
        )
        return env

    def _prepare(self, env: dict[str, str]) -> list[tuple[str, str]]:
        """Migrate, seed and sign in the staff users, in a child process on the scratch databases."""
        import json
        import subprocess
        import sys

        from django.conf import settings

        out = self.dir / "sessions.json"
        command = [sys.executable, "manage.py", "loadtest", "--prepare", str(out)]
        command += ["--clients", str(self.options.clients), "--scale", self.options.scale]
        self.log(f"seeding ({self.options.scale}) and signing in {self.options.clients} staff users")
        done = subprocess.run(command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode:
            raise RuntimeError(f"preparing the scratch data failed:\n{done.stdout}\n{done.stderr}")
        return [tuple(pair) for pair in json.loads(out.read_text())]

    def _start_server(self, env: dict[str, str]) -> None:
        import subprocess
        import sys

        from django.conf import settings

        o = self.options
        command = [
            sys.executable, "-m", "gunicorn", "config.wsgi:application",
            "--bind", f"{self.HOST}:{self.port}",
            "--worker-class", "gthread", "--workers", str(o.workers), "--threads", str(o.threads),
            "--timeout", "60", "--graceful-timeout", "5", "--keep-alive", "30",
        ]  # fmt: skip
        self.log(f"starting gunicorn on {self.HOST}:{self.port}")
        self.server_log = open(self.dir / "gunicorn.log", "w")  # noqa: SIM115  (closed in _stop_server)
        self.server = subprocess.Popen(
            command, cwd=settings.BASE_DIR, env=env, stdout=self.server_log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{(self.dir / 'gunicorn.log').read_text()[-3000:]}")
            try:
                probe = http.client.HTTPConnection(self.HOST, self.port, timeout=2)
                probe.request("GET", "/healthz", headers={"Host": f"{self.HOST}:{self.port}"})
                if probe.getresponse().status == 200:
                    probe.close()
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("gunicorn did not answer /healthz within 60 s")

    def _stop_server(self) -> None:
        import subprocess

        if self.server is None:
            return
        if self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(15)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.server_log.close()
        self.server = None

    # -- the load

    def _drive(self, sessions: list[tuple[str, str]]) -> Report:
        o = self.options
        stats = [Stats() for _ in sessions]
        ledgers = [Ledger() for _ in sessions]
        start = [0.0]
        # The clock starts as the last client is ready, before any of them takes a step.
        ready = threading.Barrier(len(sessions) + 1, action=lambda: start.__setitem__(0, time.monotonic()))
        stop = threading.Event()

        def client(n: int) -> None:
            http_ = Http(self.HOST, self.port, sessions[n], stats[n], self.faults)
            rng = random.Random(f"loadtest:{n}")
            users = [cls(http_, ledgers[n], rng, n) for _, cls in sorted(registry.scenarios.items())]
            try:
                ready_users = []
                for user in users:
                    http_.app = user.app
                    if _attempt(http_, user.setup) == "ok":
                        ready_users.append(user)  # a scenario whose setup failed (an error already) takes no steps
                users = ready_users or users[:0]
            finally:
                ready.wait()
            if not users:
                return
            weights = [user.weight for user in users]
            while not stop.is_set():
                user = rng.choices(users, weights)[0]
                http_.app = user.app
                if _attempt(http_, user.step) == "unavailable":
                    time.sleep(0.05)  # Redis is down on purpose: do not spin
            http_.close()

        threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(len(sessions))]
        for thread in threads:
            thread.start()
        ready.wait()
        self.log(f"driving {len(sessions)} clients for {o.seconds:g} s: {', '.join(sorted(registry.scenarios))}")
        fault = threading.Thread(target=self._inject_faults, args=(start[0],), daemon=True)
        fault.start()
        time.sleep(o.seconds)
        stop.set()
        fault.join()
        for thread in threads:
            thread.join(60)
        elapsed = time.monotonic() - start[0]
        return self._tally(stats, ledgers, start[0], elapsed)

    def _inject_faults(self, start: float) -> None:
        o = self.options
        planned = [k for k, on in (("kill-redis", o.kill_redis), ("stop-redis", o.stop_redis)) if on]
        for n, kind in enumerate(planned):
            at = start + o.seconds * (n + 1) / (len(planned) + 1) - o.outage / 2
            time.sleep(max(0.0, at - time.monotonic()))
            self.log(f"fault: {kind}")
            self.faults.open()
            began = time.monotonic()
            if kind == "kill-redis":
                self.kill_at = began
                self.redis.kill()
            else:
                self.redis.stop()
            time.sleep(o.outage)
            self.redis.ensure_running()  # loads the append-only file
            self.faults.close()
            self.fault_reports.append(FaultReport(kind, began - start, time.monotonic() - began))

    def _tally(self, stats: list[Stats], ledgers: list[Ledger], start: float, elapsed: float) -> Report:
        report = Report(self.options, port=self.port, seconds=elapsed, faults=self.fault_reports)
        every = [s for st in stats for s in st.samples if s.started >= start]
        samples = [s for s in every if s.method != "STORE"]
        report.store_writes = sum(s.method == "STORE" and s.status == 200 for s in every)
        report.requests = len(samples)
        report.writes = sum(s.method == "POST" for s in samples)
        report.reads = report.requests - report.writes
        report.latencies = sorted(s.seconds for s in samples if s.status and s.status != 503)
        report.errors = [e for st in stats for e in st.errors]
        per_app = Counter(s.app for s in samples)
        acked = Counter()
        for ledger in ledgers:
            acked.update(ledger.acknowledged)
        report.by_app = {app: (per_app[app], acked[app]) for app in per_app | acked}
        report.acknowledged = sum(acked.values())
        report.doubtful = sum(ledger.doubtful for ledger in ledgers)
        for st in stats:
            report.refused.update(st.refused)
        self.expectations = [e for ledger in ledgers for e in ledger.expected.values()]
        for fault in self.fault_reports:
            began = start + fault.at
            back = began + fault.down_for
            during = [s for s in samples if s.started <= back and s.started + s.seconds >= began]
            fault.unavailable = sum(s.status == 503 for s in during)
            fault.served_after = sum(s.status in (200, 302) for s in samples if s.started > back)
            if not fault.served_after:
                report.errors.append(f"{fault.kind}: no request succeeded after Redis came back")
        return report

    # -- afterwards

    def _verify(self, report: Report) -> None:
        """Every acknowledged write is in Redis, and every invariant holds."""
        from io import StringIO

        from django.core.management import call_command
        from django.test import override_settings

        with override_settings(REDIS_URL=self.redis.url):
            for expectation in self.expectations:
                try:
                    found = expectation.check()
                except Exception as error:  # a check that cannot read its data counts the write as lost
                    found, expectation.what = False, f"{expectation.what} ({type(error).__name__}: {error})"
                report.checked += 1
                window = self.kill_at is not None and self.kill_at - self.options.fsync_interval <= expectation.at
                window = window and expectation.at <= self.kill_at
                for fault in self.fault_reports:
                    if fault.kind == "kill-redis":
                        if window:
                            fault.in_window += 1
                            fault.in_window_lost += not found
                        elif expectation.at < self.kill_at:
                            fault.before_window += 1
                if not found and not window:
                    report.lost.append(f"{expectation.app}: {expectation.what}")
            out = StringIO()
            with suppress(SystemExit):  # its exit status 1 on violations; the output says which
                call_command("check_integrity", stdout=out)
        lines = [line for line in out.getvalue().splitlines() if line.strip()]
        report.integrity = lines[-1] if lines else "no output"
        counted = re.search(r"(\d+) violation\(s\)", report.integrity)
        report.violations = int(counted.group(1)) if counted else 0
        for line in lines[:-1]:
            report.errors.append(f"integrity: {line}")


def _attempt(http_: Http, action: Callable[[], None]) -> str:
    """Run one scenario action: "ok", "failed" (counted already) or "unavailable" (Redis down on purpose)."""
    try:
        action()
    except Unavailable:
        return "unavailable"
    except Failed:
        return "failed"
    except Exception as error:  # a scenario that breaks is an error of the run, not a silent dead client
        http_.stats.errors.append(f"{http_.app}: {type(error).__name__}: {error}")
        return "failed"
    return "ok"
