"""What `make run` does: migrate, an admin, demo data once, static files, gunicorn, and the
background worker of the Import / export jobs (`manage.py worker`) beside it.

SIGTERM, SIGINT or SIGHUP (systemd, Docker, Ctrl-C, a closed terminal) stops gunicorn and its
workers and the background worker, then the embedded redis-server (its SHUTDOWN fsyncs the
append-only file): nothing is left running. A background worker that exits on its own is started
again (the new one recovers the job it left). `--dev` serves with runserver instead (`make dev`).

gunicorn runs threaded workers (gthread): a client that sends its request slowly holds one
thread, not a whole worker, so slow or half-sent connections cannot starve the others.
"""

import os
import secrets
import signal
import subprocess
import sys
import time
from contextlib import suppress

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from config import seeding, store
from config.keyspace import keyspace
from config.redis import redacted

# gunicorn's time for workers to finish their requests after SIGTERM; with the
# Redis shutdown after it, the whole stop stays within 10 s.
GRACEFUL_SECONDS = 5
# What stops the dashboard: the supervisor's SIGTERM, Ctrl-C, and a closed terminal's SIGHUP
# (whose default would end this process alone, leaving the embedded Redis running).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Stop(Exception):
    """SIGTERM, SIGINT or SIGHUP arrived."""


def _raise_stop(signum, frame):
    raise Stop(signal.Signals(signum).name)


def _die_with_parent():
    """In the child, before exec: get SIGTERM if the serving process dies without stopping us."""
    with suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Command(BaseCommand):
    help = "Bootstrap and serve the dashboard on HOST:PORT (default 127.0.0.1:8000) with gunicorn."

    def add_arguments(self, parser):
        parser.add_argument("--dev", action="store_true", help="Django's runserver with autoreload (make dev).")
        parser.add_argument("--no-seed", action="store_true", help="Do not load the demo data into an empty Redis.")
        parser.add_argument(
            "--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "2")), help="gunicorn workers."
        )
        parser.add_argument(
            "--threads", type=int, default=int(os.environ.get("WEB_THREADS", "4")), help="threads per gunicorn worker."
        )

    def handle(self, *args, **options):
        previous = {sig: signal.signal(sig, _raise_stop) for sig in STOP_SIGNALS}
        server = worker = None
        try:
            host, port = os.environ.get("HOST", "127.0.0.1"), os.environ.get("PORT", "8000")
            call_command("migrate", interactive=False, verbosity=0)
            password = self.ensure_admin()
            self.warn_if_evicting()
            marker = store.seed_marker()
            if not options["no_seed"] and not marker:
                self.seed_empty_apps()
            if not options["dev"]:
                call_command("collectstatic", interactive=False, verbosity=0)
            self.stdout.write(self.style.SUCCESS(f"\nDashboard: http://{host}:{port}/"))
            self.stdout.write(f"Sign in as: admin / {password}" if password else self.where_the_password_is())
            self.stdout.write(f"Redis: {redacted(settings.REDIS_URL)}\n")
            worker = self.start(self.worker_command(options))
            server = self.start(self.command(host, port, options))
            self.stdout.flush()
            while True:
                with suppress(subprocess.TimeoutExpired):
                    if server.wait(timeout=1):
                        raise CommandError(f"the web server exited with status {server.returncode}")
                    break
                if worker.poll() is not None:
                    self.stdout.write(f"The background worker exited ({worker.returncode}): starting another.")
                    worker = self.start(self.worker_command(options))
        except Stop as stop:
            self.stdout.write(f"\n{stop}: stopping.")
        finally:
            for sig in STOP_SIGNALS:
                signal.signal(sig, signal.SIG_IGN)  # a second signal must not cut the stop short
            self.stop_groups([server, worker])
            self.stop_redis()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def command(self, host: str, port: str, options) -> list[str]:
        if options["dev"]:
            return [sys.executable, "manage.py", "runserver", f"{host}:{port}"]
        return [
            sys.executable, "-m", "gunicorn", "config.wsgi:application",
            "--bind", f"{host}:{port}",
            "--workers", str(options["workers"]),
            "--worker-class", "gthread",
            "--threads", str(options["threads"]),
            "--graceful-timeout", str(GRACEFUL_SECONDS),
            "--access-logfile", "-",
        ]  # fmt: skip

    def worker_command(self, options) -> list[str]:
        """The background worker; under --dev it reloads on code changes, as runserver does."""
        reload = "--reload" if options["dev"] else "--no-reload"
        return [sys.executable, "manage.py", "worker", reload, "--no-startup-delay"]

    def start(self, command: list[str]) -> subprocess.Popen:
        return subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            start_new_session=True,  # its own group: stopped as a whole, workers included
            preexec_fn=_die_with_parent,
        )

    def stop_groups(self, processes: list[subprocess.Popen | None]) -> None:
        """SIGTERM to each process group (the web server's, the worker's) at once, SIGKILL to what
        is left after the grace."""
        started = [p for p in processes if p is not None]
        for process in started:
            if process.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + GRACEFUL_SECONDS + 1
        for process in started:
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
        for process in started:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # stragglers (a reloader's child) of a group whose leader left
            process.wait()

    def stop_redis(self) -> None:
        from config import apps

        server, apps.owned_server = apps.owned_server, None
        if server is not None:
            server.stop()
            self.stdout.write(f"Stopped the embedded Redis (its data stays in {server.data_dir}).")

    def seed_empty_apps(self) -> None:
        """Seed the demo data of each app that holds none: data imported or entered by hand is never
        doubled by a demo seed over it."""
        empty = [s.app for s in seeding.registry.ordered() if not store.holds_prefix(keyspace.prefix(s.app))]
        if empty:
            self.stdout.write(f"Seeding the demo data of {', '.join(empty)} (manage.py seed --only ...).")
            call_command("seed", scale="demo", only=empty)

    def warn_if_evicting(self) -> None:
        """Say at start when Redis may evict keys (the pages' banner and /healthz say it too)."""
        from config.views import eviction_problem

        policy = store.evicting_policy(max_age=0)
        if policy:
            warning = f"Warning: {eviction_problem(policy)} /healthz answers 503 until then."
            self.stderr.write(self.style.WARNING(warning))

    def where_the_password_is(self) -> str:
        if os.environ.get("DJANGO_SUPERUSER_PASSWORD"):
            return "Sign in as: admin (password: DJANGO_SUPERUSER_PASSWORD)"
        saved = settings.VAR_DIR / "admin_password"
        if saved.exists():
            return f"Sign in as: admin (its generated password is in {saved}, readable by you only)"
        return "Sign in as: admin (with the password printed when it was created)"

    def ensure_admin(self) -> str | None:
        """Create the superuser `admin` once (or make an existing `admin` one). Its password when this
        call generated it, else None: printed once, and one given in DJANGO_SUPERUSER_PASSWORD never."""
        users = get_user_model()
        existing = users.objects.filter(username="admin").first()
        if existing is not None:
            if not (existing.is_superuser and existing.is_staff):
                existing.is_superuser = existing.is_staff = True
                existing.save(update_fields=["is_superuser", "is_staff"])
            return None
        given = os.environ.get("DJANGO_SUPERUSER_PASSWORD")
        if given:
            users.objects.create_superuser("admin", "admin@example.com", given)
            return None
        password = secrets.token_urlsafe(12)
        saved = settings.VAR_DIR / "admin_password"
        fd = os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # never readable by others, even briefly
        with os.fdopen(fd, "w") as out:
            out.write(password + "\n")
        saved.chmod(0o600)  # a file left from an earlier install keeps its mode through O_CREAT
        self.stdout.write(self.style.WARNING(f"Created superuser admin with a generated password: {password}"))
        self.stdout.write(f"(kept in {saved}, readable by you only)")
        users.objects.create_superuser("admin", "admin@example.com", password)
        return password
