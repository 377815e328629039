"""Import what ``export_data`` wrote, through each app's own write paths."""

from django.core.management.base import BaseCommand, CommandError

from config.exchange import cli, runner
from config.exchange.progress import Bars


class Command(BaseCommand):
    help = (
        "Import DIR/<app>/*.jsonl (as export_data writes them) into apps that hold no data yet, through the "
        "apps' own write paths, so every index and count is rebuilt. Every file is checked first: a refusal "
        "names its file, line and field, and nothing is written. A failed or interrupted import leaves the "
        "app as it was. --replace replaces an app's current data. See docs/data-exchange.md."
    )

    def add_arguments(self, parser):
        cli.add_arguments(parser, "import")
        parser.add_argument("--replace", action="store_true", help="replace the data an app holds now")

    def handle(self, *args, directory, only, replace, verbosity, **options):
        base, only = cli.folder_and_apps(directory, only, "import")
        known = runner.exchanges()
        if not base.is_dir():
            raise CommandError(f"{base}: no such directory")
        chosen = [app for app in (only or known) if (base / app).is_dir() or only]
        if not chosen:
            raise CommandError(f"{base} holds no app's export (expected {', '.join(f'{a}/' for a in known)})")
        for app in chosen:
            with Bars(self.stderr._out, verbosity > 0) as bars:
                try:
                    plan = runner.restore(app, base / app, replace=replace, bar=bars)
                except runner.Refused as exc:
                    bars.close()
                    lines = "\n".join(exc.plan.report.refusal_lines())
                    raise CommandError(
                        f"{app}: {exc.plan.report.refused} refusal(s), nothing imported:\n{lines}"
                    ) from None
                except runner.Occupied as exc:
                    raise CommandError(f"{app}: {exc}") from None
            for line in plan.report.rewrite_lines():
                self.stdout.write(f"{app}: normalized {line}")
            listed = ", ".join(f"{n} {name}" for name, n in plan.report.counts.items())
            self.stdout.write(f"{app}: imported {listed}")
        self.stdout.write(self.style.SUCCESS(f"Imported {', '.join(chosen)} from {base}."))
