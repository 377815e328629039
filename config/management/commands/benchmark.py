"""Each Redis pattern against the e-book's normalized SQL schema (PostgreSQL by SQL and by ORM, SQLite),
side by side, in one run; or the key browser on a million keys; or every page under SLOWLOG."""

import argparse
import json
import signal
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config import seeding, sqltwin
from config.benchmark import report
from config.benchmark.figures import as_json, merged_results
from config.benchmark.runner import Mismatch
from config.benchmark.suite import BUDGETS, benchmark, parts


class Command(BaseCommand):
    help = (
        "Load one generated data set into a scratch Redis (through the apps' stores), a scratch PostgreSQL "
        "cluster and SQLite (the normalized schema), check every side answers each operation alike, then time "
        "them interleaved, and whole pages beside their floor. --keybrowser measures the key browser instead."
    )

    def add_arguments(self, parser):
        parser.add_argument("--scale", choices=["demo", "large"], default="demo")
        parser.add_argument("--json", metavar="FILE", dest="json_file", help="also write the figures as JSON")
        parser.add_argument(
            "--results", nargs="?", const=str(sqltwin.RESULTS), metavar="FILE",
            help="put this run's operations into the results file the screens' SQL twins show "
            f"(default: {sqltwin.RESULTS.relative_to(sqltwin.RESULTS.parents[2])})",
        )  # fmt: skip
        parser.add_argument(
            "--baseline", metavar="FILE", help="a run's JSON at another scale: adds the growth table against it"
        )
        parser.add_argument("--no-postgres", action="store_true", help="leave PostgreSQL out (SQLite and Redis only)")
        parser.add_argument(
            "--only", action="append", default=[], metavar="APP", help="only this app's part (repeatable)"
        )
        parser.add_argument(
            "--exchange-seconds", type=float, metavar="S",
            help="the export/import round trip: stop each app's import after S seconds (0: no limit; default: no "
            "limit at demo scale, 300 at large)",
        )  # fmt: skip
        parser.add_argument("--no-exchange", action="store_true", help="leave the export/import round trip out")
        parser.add_argument(
            "--keybrowser", type=int, metavar="N", help="time the key browser's pages on a keyspace of N keys"
        )
        parser.add_argument(
            "--slowlog", type=int, nargs="?", const=1_000_000, metavar="N",
            help="seed a scratch Redis at --scale beside N keys of no app (default 1,000,000), then crawl every "
            "page under SLOWLOG and name each that left a command over 2 ms",
        )  # fmt: skip
        parser.add_argument(
            "--cluster", action="store_true",
            help="the Redis operations on one server and on a 3-primary loopback cluster, side by side",
        )  # fmt: skip
        # For the tests: a data set that loads in seconds. Not shown in --help.
        parser.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)

    def handle(
        self, *args, scale, json_file, results, baseline, no_postgres, only, keybrowser, tiny, verbosity, cluster,
        slowlog, **options
    ):  # fmt: skip
        scale = "tiny" if tiny else scale
        assert scale in BUDGETS
        exchange_seconds = options["exchange_seconds"]
        if exchange_seconds is not None and exchange_seconds < 0:
            raise CommandError("--exchange-seconds must be 0 (no limit) or more")
        if options["no_exchange"]:
            exchange_seconds = False
        elif exchange_seconds is None:
            exchange_seconds = BUDGETS[scale].exchange_seconds
        elif exchange_seconds == 0:
            exchange_seconds = None

        def progress(text):
            if verbosity > 1:
                self.stderr.write(text)

        # A SIGTERM unwinds like Ctrl-C, so the scratch servers are stopped and their directory removed.
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            if keybrowser:
                from config.benchmark import keybrowser as million

                for line in million.measure(keybrowser, runs=2 if tiny else 20):
                    self.stdout.write(line)
                return
            if slowlog is not None:
                from config.benchmark import slowlog as sweep

                unknown = set(only) - set(seeding.registry.seeders)
                if unknown:
                    raise CommandError(f"no seeder for {', '.join(sorted(unknown))}")
                figures = sweep.measure("demo" if tiny else scale, slowlog, progress, tuple(only))
                self.stdout.write("\n".join(sweep.text(figures)))
                if json_file:
                    Path(json_file).write_text(json.dumps(figures, indent=2) + "\n")
                return
            try:
                parts(scale, tuple(only))
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
            if cluster:
                from config.benchmark import cluster as on_cluster

                try:
                    compared = on_cluster.cluster_benchmark(scale, progress, only=tuple(only))
                except Mismatch as exc:
                    raise CommandError(f"the cluster answered differently, nothing reported: {exc}") from exc
                self.stdout.write("\n".join(on_cluster.text(compared)))
                return
            try:
                outcome = benchmark(
                    scale, progress, use_postgres=not no_postgres, only=tuple(only), exchange_seconds=exchange_seconds
                )
            except Mismatch as exc:
                raise CommandError(f"correctness check failed, nothing timed: {exc}") from exc
        finally:
            signal.signal(signal.SIGTERM, previous)
        figures = as_json(outcome)
        earlier = None
        if baseline:
            with open(baseline) as source:
                earlier = json.load(source)
        self.stdout.write("\n".join(report.text(figures, earlier)))
        if json_file:
            with open(json_file, "w") as out:
                json.dump(figures, out, indent=2)
        if results:
            earlier = json.loads(Path(results).read_text()) if Path(results).exists() else None
            Path(results).write_text(json.dumps(merged_results(figures, earlier), indent=1, sort_keys=True) + "\n")
        failed = [x for x in figures["exchange"] if not x["ok"]]
        if failed:
            said = "; ".join(
                f"{x['app']}: " + ", ".join([*x["violations"][:3], *(f"{name} differs" for name in x["differing"])])
                for x in failed
            )
            raise CommandError(f"the export/import round trip failed: {said}")


def _interrupt(signum, frame):
    raise KeyboardInterrupt
