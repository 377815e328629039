"""Drive the dashboard under gunicorn on loopback with signed-in clients; count, verify, report.

Everything runs on scratch data: a redis-server and a SQLite file in a
temporary directory, never var/. Exit status 1 on any error, lost write or
invariant violation.
"""

import argparse
import json
import sys
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test import Client

from config import loadtest, seeding


class Command(BaseCommand):
    help = (
        "Load test: a scratch Redis and gunicorn on 127.0.0.1, N signed-in clients reading and writing every "
        "app for a bounded time, then every acknowledged write checked in Redis and check_integrity."
    )

    def add_arguments(self, parser):
        defaults = loadtest.Options()
        parser.add_argument("--seconds", type=float, default=defaults.seconds, help="how long to drive the load")
        parser.add_argument("--clients", type=int, default=defaults.clients, help="concurrent signed-in clients")
        parser.add_argument("--port", type=int, default=0, help="loopback port for gunicorn (default: a free one)")
        parser.add_argument("--workers", type=int, default=defaults.workers, help="gunicorn worker processes")
        parser.add_argument("--threads", type=int, default=defaults.threads, help="threads per gunicorn worker")
        parser.add_argument("--appendfsync", choices=("always", "everysec", "no"), default=defaults.appendfsync)
        parser.add_argument("--scale", choices=seeding.SCALES, default="demo", help="the demo data to seed first")
        parser.add_argument("--kill-redis", action="store_true", help="SIGKILL Redis mid-run and restart it")
        parser.add_argument("--stop-redis", action="store_true", help="stop Redis mid-run and start it again")
        parser.add_argument(
            "--cluster", action="store_true",
            help="a 3-primary Redis Cluster on loopback (a replica each) instead of one server",
        )  # fmt: skip
        parser.add_argument(
            "--kill-primary", action="store_true",
            help="with --cluster: SIGKILL one primary mid-run; its replica takes over",
        )  # fmt: skip
        parser.add_argument("--outage", type=float, default=defaults.outage, help="seconds Redis stays down")
        parser.add_argument(
            "--p95-target", type=float, default=defaults.p95_target_ms, metavar="MS",
            help="the latency target the throughput is reported at (default: %(default)s ms)",
        )  # fmt: skip
        parser.add_argument(
            "--ramp", action="store_true",
            help="1, 2, 4 ... up to --clients clients, --seconds each: the most requests per second within the target",
        )  # fmt: skip
        parser.add_argument("--json", metavar="FILE", dest="json_file", help="also write the figures as JSON")
        parser.add_argument(
            "--baseline", metavar="FILE",
            help="a run's --json from before a change (same machine, same options): print both side by side",
        )  # fmt: skip
        parser.add_argument("--prepare", metavar="FILE", help=argparse.SUPPRESS)

    def handle(self, *args, prepare, **options):
        if prepare:
            return self.prepare(Path(prepare), options["clients"], options["scale"])
        if options["clients"] < 1 or options["seconds"] <= 0:
            raise CommandError("--clients and --seconds must be positive")
        names = ("seconds", "clients", "port", "workers", "threads", "appendfsync", "scale", "outage")
        chosen = loadtest.Options(**{n: options[n] for n in names})
        chosen.kill_redis, chosen.stop_redis = options["kill_redis"], options["stop_redis"]
        chosen.cluster, chosen.kill_primary = options["cluster"], options["kill_primary"]
        if chosen.kill_primary and not chosen.cluster:
            raise CommandError("--kill-primary kills a primary of a cluster: add --cluster")
        if chosen.cluster and (chosen.kill_redis or chosen.stop_redis):
            raise CommandError(
                "on a cluster the fault is --kill-primary (--kill-redis and --stop-redis stop one server)"
            )
        chosen.p95_target_ms, chosen.ramp = options["p95_target"], options["ramp"]
        if chosen.ramp and (chosen.kill_redis or chosen.stop_redis or chosen.kill_primary):
            raise CommandError("--ramp measures throughput: run it without a fault")
        before = None
        if options["baseline"]:
            try:
                before = json.loads(Path(options["baseline"]).read_text())
            except (OSError, ValueError) as exc:
                raise CommandError(f"--baseline {options['baseline']}: {exc}") from exc
        log = self.stderr.write if options["verbosity"] else (lambda line: None)
        report = loadtest.LoadTest(chosen, log=log).run()
        for line in report.lines():
            self.stdout.write(line)
        figures = report.as_json()
        if before is not None:
            for line in loadtest.comparison(before, figures):
                self.stdout.write(line)
        if options["json_file"]:
            Path(options["json_file"]).write_text(json.dumps(figures, indent=2) + "\n")
        if not report.ok:
            sys.exit(1)

    def prepare(self, out: Path, clients: int, scale: str) -> None:
        """In the child process, on the scratch databases: tables, demo data, one session per client."""
        call_command("migrate", interactive=False, verbosity=0)
        call_command("seed", scale=scale, verbosity=0)
        users = get_user_model()
        cookies = []
        for n in range(clients):
            user = users.objects.create_user(f"load{n:02d}", is_staff=True)  # no password: signed in directly
            user.groups.add(Group.objects.get(name="administrator"))  # the scenarios write and browse keys
            browser = Client()
            browser.force_login(user)
            cookies.append((settings.SESSION_COOKIE_NAME, browser.cookies[settings.SESSION_COOKIE_NAME].value))
        out.write_text(json.dumps(cookies))
