"""The test runner: Django's, on a Redis of its own, closing with a plain tally line."""

from django.conf import settings
from django.test.runner import DiscoverRunner

from config.redis import is_dev_server


class Runner(DiscoverRunner):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.parallel > 1:
            # Every test flushes the one test Redis: workers running side by side would wipe
            # each other's data mid-test.
            print(f"tests share one Redis: running them one at a time, not in {self.parallel} processes", flush=True)
            self.parallel = 1

    def setup_test_environment(self, **kwargs):
        if is_dev_server():
            raise SystemExit(f"refusing to run tests against the development Redis at {settings.REDIS_URL}")
        super().setup_test_environment(**kwargs)

    def suite_result(self, suite, result, **kwargs):
        failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
        skipped = len(result.skipped)
        passed = result.testsRun - failed - skipped - len(result.expectedFailures)
        print(f"tests: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
        return super().suite_result(suite, result, **kwargs)
