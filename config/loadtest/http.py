"""A signed-in HTTP client per load-test user, and what it measured (samples, errors, fault windows)."""

from __future__ import annotations

import http.client
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from html import unescape
from urllib.parse import urlencode, urlsplit

from config.loadtest.forms import Form, post_forms


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
