"""The test runner: Django's, on a Redis of its own, closing with a plain tally line.

``--cluster`` runs the same tests on a throwaway 3-primary Redis Cluster on
loopback (``config.cluster``) instead of the single test server: the app's
clients, cache and sessions all point at it, and it is stopped at the end.
"""

from django.conf import settings
from django.test.runner import DiscoverRunner

from config.redis import is_dev_server, reset_clients


class Runner(DiscoverRunner):
    def __init__(self, *args, cluster: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.cluster = None
        self.on_cluster = cluster
        if self.parallel > 1:
            # Every test flushes the one test Redis: workers running side by side would wipe
            # each other's data mid-test.
            print(f"tests share one Redis: running them one at a time, not in {self.parallel} processes", flush=True)
            self.parallel = 1

    @classmethod
    def add_arguments(cls, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--cluster",
            action="store_true",
            help="run on a throwaway 3-primary Redis Cluster (with a replica each) instead of one server",
        )

    def setup_test_environment(self, **kwargs):
        if self.on_cluster:
            self._start_cluster()
        if is_dev_server():
            raise SystemExit(f"refusing to run tests against the development Redis at {settings.REDIS_URL}")
        super().setup_test_environment(**kwargs)

    def teardown_test_environment(self, **kwargs):
        super().teardown_test_environment(**kwargs)
        if self.cluster:
            reset_clients()
            self.cluster.stop()

    def _start_cluster(self):
        from config.cluster import LocalCluster

        self.cluster = LocalCluster(primaries=3, replicas=1).start()
        settings.REDIS_URL = self.cluster.url
        settings.CACHES["default"]["LOCATION"] = self.cluster.url
        reset_clients()
        print(f"tests on a Redis Cluster of 3 primaries: {self.cluster.url}", flush=True)

    def suite_result(self, suite, result, **kwargs):
        failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
        skipped = len(result.skipped)
        passed = result.testsRun - failed - skipped - len(result.expectedFailures)
        print(f"tests: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
        return super().suite_result(suite, result, **kwargs)
