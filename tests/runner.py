"""The test runner: Django's, on a Redis of its own, closing with a plain tally line (``TEST_RUNNER``).

``--cluster`` runs the same tests on a throwaway 3-primary Redis Cluster on
loopback (``config.cluster``) instead of the single test server: the app's
clients, cache and sessions all point at it, and it is stopped at the end.

``--parallel N`` runs test classes in N worker processes (Django's
``ParallelTestSuite``). Every test flushes its Redis, so each worker gets a
Redis of its own before its first test: an embedded server (or, with
``--cluster``, a cluster) and a ``VAR_DIR`` of its own for the import journal's
locks and staged uploads, besides the database clone Django gives it.

``--slowest N`` closes with the N test classes that took longest, their
``setUpClass`` included: where to look when the suite grows slow.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
import shutil
import tempfile
import time
import unittest
from collections import defaultdict
from pathlib import Path

from django.conf import settings
from django.test import override_settings
from django.test import runner as django_runner
from django.test.runner import DiscoverRunner, ParallelTestSuite, RemoteTestResult, RemoteTestRunner

from config.redis import is_dev_server, reset_clients


class Runner(DiscoverRunner):
    def __init__(self, *args, cluster: bool = False, slowest: int = 0, **kwargs):
        super().__init__(*args, **kwargs)
        self.cluster = None
        self.on_cluster = cluster
        self.slowest = slowest
        if self.parallel > 1 and not settings.REDIS_EMBEDDED_DIR and not cluster:
            # REDIS_TEST_URL names one server that every worker would flush under the others.
            print(f"tests share the Redis of REDIS_TEST_URL: running them in one process, not {self.parallel}")
            self.parallel = 1

    @classmethod
    def add_arguments(cls, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--cluster",
            action="store_true",
            help="run on a throwaway 3-primary Redis Cluster (with a replica each) instead of one server",
        )
        parser.add_argument(
            "--slowest",
            type=int,
            default=0,
            metavar="N",
            help="close with the N test classes that took longest",
        )

    def parallel_test_suite(self, subsuites, *args, **kwargs):
        suite = WorkerSuite(sorted(subsuites, key=self._start_order), *args, **kwargs)
        suite.process_setup_args = (self.on_cluster, settings.REDIS_EMBEDDED_DIR)
        if self.slowest:
            suite.runner_class = TimedRemoteRunner
        return suite

    def _start_order(self, subsuite) -> tuple[int, bool]:
        """Django's order of kinds (TestCase, SimpleTestCase, then those that flush the database);
        within a kind, the classes tagged "slow" or "browser" first, so that no long class starts
        last while the other workers sit idle."""
        first = next(iter(subsuite))
        kind = next((i for i, cls in enumerate(self.reorder_by) if isinstance(first, cls)), len(self.reorder_by))
        return kind, not {"slow", "browser"} & _tags(first)

    def get_resultclass(self):
        return super().get_resultclass() or (TimedResult if self.slowest else None)

    def setup_test_environment(self, **kwargs):
        if is_dev_server():
            raise SystemExit(f"refusing to run tests against the development Redis at {settings.REDIS_URL}")
        super().setup_test_environment(**kwargs)

    def teardown_test_environment(self, **kwargs):
        super().teardown_test_environment(**kwargs)
        if self.cluster:
            reset_clients()
            self.cluster.stop()
        if settings.REDIS_EMBEDDED_DIR:
            # A worker killed before its own cleanup leaves its server behind: stop it here.
            for folder in Path(settings.REDIS_EMBEDDED_DIR).glob("worker-*"):
                _stop_worker_redis(folder)

    def run_suite(self, suite, **kwargs):
        if self.on_cluster and not isinstance(suite, WorkerSuite):  # workers start a cluster each
            self.cluster = _point_at_cluster()
            print(f"tests on a Redis Cluster of 3 primaries: {self.cluster.url}", flush=True)
        return super().run_suite(suite, **kwargs)

    def suite_result(self, suite, result, **kwargs):
        failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
        skipped = len(result.skipped)
        passed = result.testsRun - failed - skipped - len(result.expectedFailures)
        if self.slowest and isinstance(result, TimedResult):
            result.print_slowest(self.slowest)
        print(f"tests: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
        return super().suite_result(suite, result, **kwargs)


def _tags(test) -> set[str]:
    method = getattr(test, getattr(test, "_testMethodName", ""), None)
    return {*getattr(test, "tags", ()), *getattr(method, "tags", ())}


def _point_at_cluster():
    from config.cluster import LocalCluster

    cluster = LocalCluster(primaries=3, replicas=1).start()
    settings.REDIS_URL = cluster.url
    settings.CACHES["default"]["LOCATION"] = cluster.url
    reset_clients()
    return cluster


def _stop_worker_redis(folder: Path) -> None:
    from config.embedded import EmbeddedRedis

    server = EmbeddedRedis(folder / "redis")
    if server.is_running():
        server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def init_worker(counter, initial_settings, serialized_contents, process_setup, process_setup_args, *args):
    """Django's worker setup (its database clone), then a Redis and a ``VAR_DIR`` of the worker's own.

    ``override_settings`` sends ``setting_changed``: the Redis clients are rebuilt on the new URL
    (``config.redis``) and Django's cache handler re-reads ``CACHES``, so sessions and the cache
    follow too. Stopped when the worker exits (``multiprocessing.util.Finalize``, which a pool
    worker runs where it skips ``atexit``), or by the runner's teardown."""
    django_runner._init_worker(counter, initial_settings, serialized_contents, process_setup, process_setup_args, *args)
    on_cluster, base = process_setup_args
    # A pool's workers are daemons, which may not start processes of their own; some tests do
    # (the benchmark's CMS compare runs in a child it stops after a timeout).
    multiprocessing.current_process().daemon = False
    folder = Path(base or tempfile.mkdtemp(prefix="rdash-test-")) / f"worker-{django_runner._worker_id}"
    var = folder / "var"
    var.mkdir(mode=0o700, parents=True, exist_ok=True)
    # Processes the tests start (`manage.py worker`) read the secret key from VAR_DIR: the same one.
    (var / "secret_key").write_text(settings.SECRET_KEY)
    if on_cluster:
        cluster = _point_at_cluster()
        url = cluster.url
        multiprocessing.util.Finalize(None, cluster.stop, exitpriority=10)
    else:
        from config.embedded import EmbeddedRedis

        server = EmbeddedRedis(folder / "redis", settings.REDIS_APPENDFSYNC)
        server.ensure_running()
        url = server.url
        multiprocessing.util.Finalize(None, _stop_worker_redis, args=(folder,), exitpriority=10)
    caches = {**settings.CACHES, "default": {**settings.CACHES["default"], "LOCATION": url}}
    override_settings(REDIS_URL=url, CACHES=caches, VAR_DIR=var).enable()


class TimedResult(unittest.TextTestResult):
    """Adds up each test class's time: from the end of the test before to the end of each of its
    tests, so its ``setUpClass`` counts. Workers send their tests' times as ``addClassTime``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.class_seconds: dict[str, float] = defaultdict(float)
        self._mark = time.perf_counter()
        self._from_workers = False

    def stopTest(self, test):
        super().stopTest(test)
        now = time.perf_counter()
        if not self._from_workers:  # replayed from a worker: its own time came before
            self.class_seconds[_class_label(test)] += now - self._mark
        self._mark = now

    def addClassTime(self, test, elapsed):
        self._from_workers = True
        self.class_seconds[_class_label(test)] += elapsed

    def print_slowest(self, count: int) -> None:
        ranked = sorted(self.class_seconds.items(), key=lambda item: -item[1])[:count]
        self.stream.writeln(f"\nthe {len(ranked)} slowest test classes:")
        for label, seconds in ranked:
            self.stream.writeln(f"{seconds:8.1f} s  {label}")
        self.stream.flush()


def _class_label(test) -> str:
    return f"{type(test).__module__}.{type(test).__qualname__}"


class TimedRemoteResult(RemoteTestResult):
    """A worker's result, sending each test's time (its class's setup included) with its outcome."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._mark = time.perf_counter()

    def stopTest(self, test):
        now = time.perf_counter()
        self.events.append(("addClassTime", self.test_index, now - self._mark))
        self._mark = now
        super().stopTest(test)


class TimedRemoteRunner(RemoteTestRunner):
    resultclass = TimedRemoteResult


class WorkerSuite(ParallelTestSuite):
    init_worker = init_worker
