"""Export each app's documents as JSON Lines: DIR/<app>/<entity>.jsonl and DIR/<app>/manifest.json."""

from django.core.management.base import BaseCommand, CommandError

from config.exchange import cli, files, runner
from config.exchange.progress import Bars


class Command(BaseCommand):
    help = (
        "Write each app's documents (what people entered, no derived data) to DIR/<app>/<entity>.jsonl, "
        "one JSON object per line, keys sorted, in ascending id order, and DIR/<app>/manifest.json. "
        "Reads with SCAN and pipelines in batches. See docs/data-exchange.md."
    )

    def add_arguments(self, parser):
        cli.add_arguments(parser, "export")

    def handle(self, *args, directory, only, verbosity, **options):
        base, only = cli.folder_and_apps(directory, only, "export")
        known = runner.exchanges()
        for app in only or known:
            with Bars(self.stderr._out, verbosity > 0) as bars:
                try:
                    counts = runner.export(app, base / app, bars)
                except files.TooLong as exc:
                    raise CommandError(f"{app}: {exc}") from None
            if verbosity:
                listed = ", ".join(f"{n} {name}" for name, n in counts.items())
                self.stdout.write(f"{app}: {listed} -> {base / app}")
        self.stdout.write(self.style.SUCCESS(f"Exported {', '.join(only or known)} to {base}."))
