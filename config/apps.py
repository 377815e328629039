import atexit
import os
import shutil
import signal
import sys
import threading

from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_migrate
from django.utils.module_loading import autodiscover_modules

# The embedded redis-server this process started, if any: the process that starts
# it stops it when it exits, so no command leaves one behind. Processes that
# found it running (gunicorn workers, the dev server's reloaded child, a
# `manage.py seed` beside a running dashboard) leave it to its starter.
owned_server = None


class ConfigConfig(AppConfig):
    """The cross-cutting app: registries, embedded Redis, roles, dashboard, commands."""

    name = "config"
    verbose_name = "Dashboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from config import core_integrity, keys, roles, signals  # noqa: F401  (registrations, receivers)
        from config.exchange import integrity  # noqa: F401  (registrations)

        post_migrate.connect(_sync_roles, sender=self, dispatch_uid="config.sync_roles")
        autodiscover_modules("keys", "integrity", "seeds", "loadtest")
        if settings.REDIS_EMBEDDED_DIR:
            from config.embedded import EmbeddedRedis

            server = EmbeddedRedis(settings.REDIS_EMBEDDED_DIR, settings.REDIS_APPENDFSYNC)
            started = server.ensure_running()
            if settings.TESTING:
                atexit.register(_discard_test_server, server)
                # A test run stopped with SIGTERM (a timeout, a CI cancel) runs
                # atexit too, so its server does not outlive it.
                signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
            elif started and _is_manage_py():
                global owned_server
                owned_server = server
                atexit.register(server.stop)
                _exit_on_sigterm()


def _is_manage_py() -> bool:
    return os.path.basename(sys.argv[0]) in {"manage.py", "django-admin"}


def _exit_on_sigterm() -> None:
    """SIGTERM runs the atexit hooks (Python's default dies without them), unless the
    command set its own handler."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def _sync_roles(**kwargs):
    from config.roles import sync_roles

    sync_roles()


def _discard_test_server(server):
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)
