"""Each Redis pattern against the e-book's normalized SQL schema, side by side, in one run."""

import argparse
import json

from django.core.management.base import BaseCommand, CommandError

from config.benchmark import report
from config.benchmark.runner import Mismatch
from config.benchmark.suite import benchmark


class Command(BaseCommand):
    help = (
        "Load one generated data set into a scratch Redis (through the apps' stores) and into SQLite "
        "(the normalized schema), check both answer each operation alike, then time them and whole pages."
    )

    def add_arguments(self, parser):
        parser.add_argument("--scale", choices=["demo", "large"], default="demo")
        parser.add_argument("--json", metavar="FILE", dest="json_file", help="also write the figures as JSON")
        # For the tests: a data set that loads in a second. Not shown in --help.
        parser.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)

    def handle(self, *args, scale, json_file: str | None, tiny: bool, verbosity, **options):
        scale = "tiny" if tiny else scale

        def progress(text):
            if verbosity > 1:
                self.stderr.write(text)

        try:
            outcome = benchmark(scale, progress)
        except Mismatch as exc:
            raise CommandError(f"correctness check failed, nothing timed: {exc}") from exc
        meta = outcome.meta
        lines = [
            f"Benchmark at scale {scale!r}, {meta['date']}, {meta['machine']}; Redis {meta['redis']}, "
            f"SQLite {meta['sqlite']}, Python {meta['python']}.",
            "Records: " + ", ".join(f"{count:,} {name}" for name, count in meta["records"].items()) + ".",
            "All operations answered alike on both sides.",
            "",
            *report.operations_table(outcome.results),
            "",
            *report.loads_table(outcome.redis_loads, outcome.sql_loads),
            "",
            *report.pages_table(outcome.pages),
        ]
        self.stdout.write("\n".join(lines))
        if json_file:
            figures = report.as_json(meta, outcome.results, outcome.redis_loads, outcome.sql_loads, outcome.pages)
            with open(json_file, "w") as out:
                json.dump(figures, out, indent=2)
