"""Test bases: a real Redis flushed per test, round-trip counting, a real browser.

The Redis is the test runner's own (a redis-server in a temporary directory,
or REDIS_TEST_URL), never the development data under var/: every base checks
that before it flushes anything.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
import unittest
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles.testing import StaticLiveServerTestCase
from django.test import TestCase, tag

from config import store, trace
from config.redis import client, is_dev_server, on_cluster, raw_client
from config.store import scripts

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(settings.VAR_DIR) / "screenshots"
PASSWORD = "correct-horse-battery-staple"


def run_concurrently(target, args_list) -> None:
    """Run ``target(*args)`` for each ``args``, each in its own thread, all at once, and
    wait for them; the first exception a thread raised is raised here, so a failing
    worker fails the test instead of dying quietly in its thread."""
    errors: list[BaseException] = []

    def guarded(*args):
        try:
            target(*args)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=tuple(args)) for args in args_list]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def files_of(folder) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes: two exports compare whole."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def temporary_folder(test: unittest.TestCase) -> Path:
    """A folder of the test's own, removed after it."""
    folder = tempfile.TemporaryDirectory()
    test.addCleanup(folder.cleanup)
    return Path(folder.name)


def flush_test_redis() -> None:
    if is_dev_server():
        raise RuntimeError(f"refusing to flush the development Redis at {settings.REDIS_URL}")
    if on_cluster():
        client().flushdb(target_nodes="primaries")
    else:
        client().flushdb()


def command_stats() -> dict[str, dict]:
    """INFO commandstats: on a cluster, every primary's summed, command by command."""
    if not on_cluster():
        return client().info("commandstats")
    summed: dict[str, dict] = {}
    for stats in client().info("commandstats", target_nodes="primaries").values():
        for name, counts in stats.items():
            mine = summed.setdefault(name, {"calls": 0, "usec": 0})
            mine["calls"] += int(counts["calls"])
            mine["usec"] += int(counts["usec"])
    return summed


SCRIPT_CLIENT = b"?:0"  # SLOWLOG's client address of a command a script ran


class Logged(list):
    """Commands as ``commands_logged`` lists them, each one's words; ``by_script``: whether a script ran it."""

    def __init__(self):
        super().__init__()
        self.by_script: list[bool] = []


@contextmanager
def commands_logged():
    """Every command one server runs in the block, a script's own too (SLOWLOG at threshold 0), oldest
    first: what a test counts to bound the work one command does, at two sizes."""
    server = raw_client()
    server.config_set("slowlog-max-len", 100_000)
    server.config_set("slowlog-log-slower-than", 0)
    server.slowlog_reset()
    found = Logged()
    try:
        yield found
        entries = sorted(server.slowlog_get(100_000), key=lambda e: e["id"])
        found += [e["command"].split() for e in entries]
        found.by_script += [e["client_address"] == SCRIPT_CLIENT for e in entries]
    finally:
        server.config_set("slowlog-log-slower-than", 10_000)
        server.slowlog_reset()


def flush_scripts() -> None:
    """SCRIPT FLUSH (on a cluster, on every primary), as a restarted server has no scripts."""
    if on_cluster():
        client().execute_command("SCRIPT FLUSH", target_nodes="primaries")
    else:
        client().script_flush()


def reset_command_stats() -> None:
    """CONFIG RESETSTAT (on a cluster, on every primary)."""
    if on_cluster():
        client().config_resetstat(target_nodes="primaries")
    else:
        client().config_resetstat()


class RedisMixin:
    """Flush the test Redis before each test; count round trips exactly. Each test starts with every
    script loaded (a test before it may have flushed them, on one node or every one), so a script
    call is one round trip whichever tests ran before."""

    def setUp(self):
        flush_test_redis()
        scripts.load()
        store.maxmemory_policy(max_age=0)  # the eviction banner's policy read now, in no page's count
        super().setUp()

    @contextmanager
    def assertRoundTrips(self, expected: int, origin: str | None = "data"):
        """Assert the block sends exactly ``expected`` round trips to Redis.

        ``origin="data"`` (the default) counts the domain client only, leaving
        out the session load that every signed-in page pays; ``None`` counts all.
        On a cluster a pipeline to several nodes, all written before any is read,
        counts once: the round trips the block waits for one after another.
        """
        with trace.recording() as recorded:
            yield recorded
        actual = recorded.wave_count(origin)
        if actual != expected:
            listing = "\n".join(
                f"  {i + 1}. [{trip.origin}] " + "; ".join(str(c) for c in trip.commands)
                for i, trip in enumerate(recorded.trips(origin))
            )
            self.fail(f"expected {expected} round trips, got {actual}:\n{listing}")

    @contextmanager
    def assertCommands(self, expected: int, origin: str | None = "data"):
        """Assert the block sends exactly ``expected`` Redis commands (MULTI and EXEC included)."""
        with trace.recording() as recorded:
            yield recorded
        self.assertEqual(
            recorded.command_count(origin), expected, [str(c) for t in recorded.trips(origin) for c in t.commands]
        )

    def make_staff(self, username: str = "staff", role: str | None = "administrator", **extra):
        """A member of staff in one of the roles (``config.roles``); ``role=None`` for none."""
        from django.contrib.auth.models import Group

        from config.roles import sync_roles

        user = get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True, **extra)
        if role:
            if not Group.objects.filter(name=role).exists():
                sync_roles()  # a TransactionTestCase's flush removed the migration's groups
            user.groups.add(Group.objects.get(name=role))
        return user


class RedisTestCase(RedisMixin, TestCase):
    """A Django TestCase whose Redis starts empty; ``self.client`` is signed in as ``self.user``."""

    sign_in = True

    def setUp(self):
        super().setUp()
        if self.sign_in:
            self.user = self.make_staff()
            self.client.force_login(self.user)


# The process's Playwright and Chromium, shared by every browser test class: each test has a
# browser context of its own, so sharing the browser keeps tests apart without a launch per class.
_chromium: tuple | None = None


def chromium():
    """The shared Chromium, launched on first use (again if it went away) and closed at exit."""
    global _chromium
    if _chromium is not None and _chromium[1].is_connected():
        return _chromium[1]
    from playwright.sync_api import sync_playwright

    if _chromium is None:
        atexit.register(_close_chromium)
    else:
        _chromium[0].stop()
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    )
    _chromium = (playwright, browser)
    return browser


def _close_chromium() -> None:
    if _chromium is not None:
        playwright, browser = _chromium
        browser.close()
        playwright.stop()


@tag("browser")
class BrowserTestCase(RedisMixin, StaticLiveServerTestCase):
    """Playwright driving Debian's Chromium against a live server. Tagged "browser", which every
    subclass inherits: `make check` leaves them out.

    Skips, saying why, only where no Chromium is installed; CI installs one.
    """

    @classmethod
    def setUpClass(cls):
        if not shutil.which(CHROMIUM):
            reason = f"no Chromium at {CHROMIUM}: install Debian's chromium package to run browser tests"
            if os.environ.get("CI"):
                raise RuntimeError(reason)  # .ci/run installs it: missing there is a failure
            print(f"\nskipping {cls.__name__}: {reason}")
            raise unittest.SkipTest(reason)
        # Playwright's sync API runs an event loop in this thread; Django's ORM
        # calls from the test itself are still synchronous and safe.
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        super().setUpClass()
        cls.browser = chromium()
        from playwright.sync_api import expect

        # expect() waits as long as the page's own waits (setUp): on a busy machine 5 s is short.
        expect.set_options(timeout=15_000)

    def setUp(self):
        super().setUp()
        self.context = self.browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)

    def tearDown(self):
        self.context.close()
        super().tearDown()

    def url(self, path: str) -> str:
        return self.live_server_url + path

    def sign_in(self, username: str = "staff") -> None:
        """Sign in through the real form."""
        self.make_staff(username)
        self.page.goto(self.url("/accounts/login/"))
        self.page.fill("input[name=username]", username)
        self.page.fill("input[name=password]", PASSWORD)
        self.page.click("button[type=submit]")
        self.page.wait_for_url(self.url("/"))

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


def run_jobs() -> None:
    """Run every queued background job in this process and return: the worker command's own loop
    (``manage.py worker --batch``), for tests that go through a job page without a worker process.
    The loop's ``close_old_connections`` would close a TestCase's connection, held in its
    transaction, as a request's end would: the test client keeps it open the same way."""
    from unittest import mock

    from django.core.management import call_command

    with (
        mock.patch("django_tasks_db.management.commands.db_worker.close_old_connections"),
        mock.patch("config.management.commands.worker.close_old_connections"),
    ):
        call_command("worker", "--batch", "--no-reload", "--no-startup-delay", "--interval", "0", verbosity=0)


def start_worker(test: unittest.TestCase, log_path: Path, stop_at: tuple[str, ...] = ()):
    """``manage.py worker`` as a process of its own on the test Redis and the test database (a
    file: ``settings.DATABASES`` TEST NAME), stopped (killed) after the test unless it already was.
    ``stop_at``: a stop of tests/core/import_driver.py (``("kill-after", "1500")``), for the import
    job it runs."""
    import signal
    import subprocess
    import sys

    from django.db import connection

    env = {k: v for k, v in os.environ.items() if k != "REDIS_TEST_URL"}
    env.update(
        REDIS_URL=settings.REDIS_URL,
        DATABASE_URL=f"sqlite:///{connection.settings_dict['NAME']}",
        VAR_DIR=str(settings.VAR_DIR),
    )
    log = open(log_path, "w+")  # noqa: SIM115  (closed by the cleanup)
    command = [sys.executable, "manage.py"]
    if stop_at:
        command = [sys.executable, "-m", "tests.core.import_driver", *stop_at, "--"]
    process = subprocess.Popen(
        [*command, "worker", "--no-reload", "--no-startup-delay", "--interval", "0.1"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )

    def stop():
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait()
        log.close()

    test.addCleanup(stop)
    return process
