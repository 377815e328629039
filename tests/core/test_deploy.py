"""`make run` as deployed: gunicorn with DEBUG off, WhiteNoise, the app's own error pages, the
background worker beside it, and a stop on SIGTERM that leaves no process behind and the
append-only file flushed."""

import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings
from django.test import tag

from config.benchmark.placement import descendants
from config.embedded import EmbeddedRedis, _alive
from tests.base import RedisTestCase

STARTUP_SECONDS = 180  # migrate, collectstatic and gunicorn's boot on a busy machine
STOP_SECONDS = 10  # the promise: SIGTERM to nothing left


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def background_workers(pid: int) -> list[int]:
    """The ``manage.py worker`` processes below ``pid``."""
    found = []
    for child in descendants(pid):
        with contextlib.suppress(OSError):
            if b"\0worker\0" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
    return found


def wait_for(condition, seconds: float = 60):
    deadline = time.monotonic() + seconds
    while not (found := condition()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


class Served:
    """``manage.py serve`` in a scratch VAR_DIR (its own embedded Redis and database) on a free port."""

    def __init__(self, *args: str, **extra_env: str):
        self.dir = Path(tempfile.mkdtemp(prefix="rdash-serve-"))
        self.tmp = self.dir / "tmp"  # its temporary folder, where Django would spool an upload
        self.tmp.mkdir()
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "REDIS_TEST_URL", "DATABASE_URL", "DEBUG"}}
        env.update(
            VAR_DIR=str(self.dir),
            PORT=str(self.port),
            SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_SUPERUSER_PASSWORD=secrets.token_urlsafe(16),
            WEB_CONCURRENCY="2",
            TMPDIR=str(self.tmp),
            **extra_env,
        )
        self.env = env
        self.log = open(self.dir / "serve.log", "w+")  # noqa: SIM115  (closed in close())
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--no-seed", *args],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.redis = EmbeddedRedis(self.dir / "redis")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def get(self, path: str):
        try:
            with urllib.request.urlopen(self.url(path), timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def wait_until_up(self) -> None:
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"serve exited with {self.process.returncode}:\n{self.output()}")
            try:
                if self.get("/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"serve did not answer within {STARTUP_SECONDS} s:\n{self.output()}")

    def output(self) -> str:
        self.log.flush()
        return (self.dir / "serve.log").read_text()

    def close(self) -> None:
        """Whatever a failed test left: no process, no directory."""
        for pid in {*descendants(self.process.pid), self.process.pid}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.process.wait()
        if self.redis.is_running():
            self.redis.stop()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@unittest.skipUnless(Path("/proc/self/stat").exists(), "needs /proc to find the server's processes")
@tag("slow")
class LifecycleTest(RedisTestCase):
    sign_in = False

    def test_sigterm_stops_gunicorn_its_workers_and_redis_with_the_aof_flushed(self):
        served = Served()
        self.addCleanup(served.close)
        served.wait_until_up()

        # Served as deployed: DEBUG off, static files from WhiteNoise with hashed names.
        status, _headers, body = served.get("/accounts/login/")
        self.assertEqual(status, 200)
        css = re.search(rb'href="(/static/css/app\.[0-9a-f]{12}\.css)"', body)
        self.assertIsNotNone(css, "the stylesheet has no hashed name: collectstatic or the storage is off")
        status, headers, _ = served.get(css.group(1).decode())
        self.assertEqual(status, 200)
        self.assertIn("max-age=315360000", headers["Cache-Control"])
        status, _headers, body = served.get("/no/such/page/")
        self.assertEqual(status, 404)
        self.assertIn(b"Not found", body)
        self.assertNotIn(b"URLconf", body)  # no technical 404 listing the URL patterns

        # The background worker runs beside gunicorn; one that dies is started again.
        (worker,) = wait_for(lambda: background_workers(served.process.pid))
        os.kill(worker, signal.SIGKILL)
        (again,) = wait_for(lambda: [p for p in background_workers(served.process.pid) if p != worker])
        self.assertIn("The background worker exited (-9): starting another.", served.output())

        processes = descendants(served.process.pid)
        self.assertIn(again, processes)
        redis_pid = served.redis.pid()
        self.assertIsNotNone(redis_pid)
        self.assertGreaterEqual(len(processes), 4, "gunicorn's master and two workers, the background worker")
        served.redis.client().set("written:before:sigterm", "1")

        served.process.send_signal(signal.SIGTERM)
        served.process.wait(timeout=STOP_SECONDS)
        left = [pid for pid in {*processes, redis_pid} if _alive(pid)]
        self.assertEqual(left, [], served.output())
        self.assertFalse(served.redis.socket.exists())

        served.redis.ensure_running()  # the data came back from the append-only file
        self.addCleanup(served.redis.stop)
        self.assertEqual(served.redis.client().get("written:before:sigterm"), b"1")

    def test_sigterm_stops_the_development_server_and_its_reloaded_child_too(self):
        served = Served("--dev", DEBUG="1")
        self.addCleanup(served.close)
        served.wait_until_up()
        self.assertEqual(len(wait_for(lambda: background_workers(served.process.pid)[1:])), 1, "no reloaded worker")
        processes = descendants(served.process.pid)
        redis_pid = served.redis.pid()
        self.assertGreaterEqual(len(processes), 4, "runserver, the worker, and the autoreloaded child of each")
        served.process.send_signal(signal.SIGTERM)
        served.process.wait(timeout=STOP_SECONDS)
        self.assertEqual([pid for pid in {*processes, redis_pid} if _alive(pid)], [], served.output())

    def test_a_command_that_exits_leaves_no_redis_server(self):
        for args in (["--help"], ["check"]):
            with self.subTest(args=args):
                scratch = Path(tempfile.mkdtemp(prefix="rdash-cmd-"))
                self.addCleanup(shutil.rmtree, scratch, True)
                env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "REDIS_TEST_URL"}}
                env["VAR_DIR"] = str(scratch)
                command = [sys.executable, "manage.py", *(["serve", *args] if args == ["--help"] else args)]
                done = subprocess.run(command, cwd=settings.BASE_DIR, env=env, capture_output=True, timeout=120)
                self.assertEqual(done.returncode, 0, done.stderr)
                server = EmbeddedRedis(scratch / "redis")
                self.assertFalse(server.is_running())
                pid = server.pid()
                self.assertFalse(pid and _alive(pid))

    def test_a_failed_start_leaves_no_redis_server(self):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            served = Served()
            self.addCleanup(served.close)
            served.env["PORT"] = str(taken.getsockname()[1])
            served.process.kill()
            served.process.wait()
            served.process = subprocess.Popen(
                [sys.executable, "manage.py", "serve", "--no-seed"],
                cwd=settings.BASE_DIR,
                env=served.env,
                stdout=served.log,
                stderr=subprocess.STDOUT,
            )
            served.process.wait(timeout=STARTUP_SECONDS)
        self.assertNotEqual(served.process.returncode, 0)
        self.assertFalse(served.redis.is_running(), served.output())


def raw_request(port: int, head: bytes, body: bytes = b"", timeout: float = 30) -> bytes:
    """Send ``head`` (request line and headers, without the blank line) and the first part
    of a body, then read the answer's status line and headers: what a server says before the
    client has sent the rest."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(head + b"\r\n\r\n" + body)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


@unittest.skipUnless(Path("/proc/self/stat").exists(), "needs /proc to find the server's processes")
@tag("slow")
class HostileClientTest(RedisTestCase):
    """Slow and hostile clients against `make run` as deployed (gunicorn's threaded workers),
    then SIGHUP, a closed terminal, which must stop everything as SIGTERM does."""

    sign_in = False

    def test_slow_clients_and_anonymous_uploads_cannot_starve_it_and_sighup_stops_everything(self):
        served = Served()
        self.addCleanup(served.close)
        served.wait_until_up()
        self.assertIn("--worker-class gthread", " ".join(Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
                                                         for pid in descendants(served.process.pid)))  # fmt: skip

        # Three connections that send half a request and stop (two sync workers stalled for good).
        # Each is accepted (the probe after it is answered) before the next one opens.
        for _ in range(3):
            conn = socket.create_connection(("127.0.0.1", served.port))
            self.addCleanup(conn.close)
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            self.assertEqual(served.get("/healthz")[0], 200)  # answered beside them, each time

        # An anonymous upload with a self-chosen CSRF cookie: turned away on its headers, the 200 MB
        # body never sent, and nothing spooled to the temporary folder.
        token = secrets.token_hex(16)
        head = (
            "POST /exchange/orgchart/preview/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 200000000\r\n"
            f"Cookie: csrftoken={token}\r\nX-CSRFToken: {token}"
        ).encode()
        first = b'--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n' + b"x" * 65536
        answer = raw_request(served.port, head, first)
        self.assertTrue(answer.startswith(b"HTTP/1.1 413"), answer[:200])  # past REQUEST_BODY_LIMIT
        small = head.replace(b"200000000", b"30000000")  # within the limit: still nobody signed in
        answer = raw_request(served.port, small, first)
        self.assertTrue(answer.startswith(b"HTTP/1.1 302"), answer[:200])
        self.assertIn(b"Location: /accounts/login/?next=/exchange/orgchart/preview/", answer)
        # A chunked body states no length: refused before any of it is read.
        chunked = b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked"
        self.assertTrue(raw_request(served.port, chunked, b"10000\r\n" + b"x" * 1000).startswith(b"HTTP/1.1 411"))
        self.assertEqual([p.name for p in served.tmp.rglob("*")], [])
        self.assertEqual(served.get("/healthz")[0], 200)

        processes = descendants(served.process.pid)
        redis_pid = served.redis.pid()
        served.process.send_signal(signal.SIGHUP)
        served.process.wait(timeout=STOP_SECONDS)
        self.assertEqual([pid for pid in {*processes, redis_pid} if _alive(pid)], [], served.output())
        self.assertIn("SIGHUP: stopping.", served.output())
