"""Export each app's documents as JSON Lines: DIR/<app>/<entity>.jsonl and DIR/<app>/manifest.json."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.exchange import runner
from config.exchange.progress import Bars


class Command(BaseCommand):
    help = (
        "Write each app's documents (what people entered, no derived data) to DIR/<app>/<entity>.jsonl, "
        "one JSON object per line, keys sorted, in ascending id order, and DIR/<app>/manifest.json. "
        "Reads with SCAN and pipelines in batches. See docs/data-exchange.md."
    )

    def add_arguments(self, parser):
        parser.add_argument("--only", nargs="+", metavar="APP", help="export only these apps")
        parser.add_argument("directory", nargs="?")

    def handle(self, *args, directory, only, verbosity, **options):
        if directory is None and only and len(only) > 1:
            directory = only.pop()  # "--only catalog cms DIR": argparse gave DIR to --only
        if directory is None:
            raise CommandError("give the directory: DIR")
        known = runner.exchanges()
        unknown = sorted(set(only or ()) - set(known))
        if unknown:
            raise CommandError(f"no export format for {', '.join(unknown)}; known: {', '.join(known)}")
        base = Path(directory)
        for app in only or known:
            with Bars(self.stderr._out, verbosity > 0) as bars:
                counts = runner.export(app, base / app, bars)
            if verbosity:
                listed = ", ".join(f"{n} {name}" for name, n in counts.items())
                self.stdout.write(f"{app}: {listed} -> {base / app}")
        self.stdout.write(self.style.SUCCESS(f"Exported {', '.join(only or known)} to {base}."))
