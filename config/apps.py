import atexit
import shutil
import signal
import sys

from django.apps import AppConfig
from django.conf import settings
from django.utils.module_loading import autodiscover_modules


class ConfigConfig(AppConfig):
    """The cross-cutting app: registries, embedded Redis, dashboard, commands."""

    name = "config"
    verbose_name = "Dashboard"

    def ready(self):
        from config import core_integrity, keys, signals  # noqa: F401  (registrations)

        autodiscover_modules("keys", "integrity", "seeds", "loadtest")
        if settings.REDIS_EMBEDDED_DIR:
            from config.redis import EmbeddedRedis

            server = EmbeddedRedis(settings.REDIS_EMBEDDED_DIR, settings.REDIS_APPENDFSYNC)
            server.ensure_running()
            if settings.TESTING:
                atexit.register(_discard_test_server, server)
                # A test run stopped with SIGTERM (a timeout, a CI cancel) runs
                # atexit too, so its server does not outlive it.
                signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def _discard_test_server(server):
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)
