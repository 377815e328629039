"""Import what ``export_data`` wrote, through each app's own write paths; or recover an import that
was interrupted."""

import signal

from django.core.management.base import BaseCommand, CommandError

from config.exchange import cli, journal, runner
from config.exchange.progress import Bars


class Stopped(BaseException):
    """SIGTERM or SIGINT reached the import: raised where it runs, so it rolls back as any failure."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Command(BaseCommand):
    help = (
        "Import DIR/<app>/*.jsonl (as export_data writes them) into apps that hold no data yet, through the "
        "apps' own write paths, so every index and count is rebuilt. Every file is checked first: a refusal "
        "names its file, line and field, and nothing is written. --replace replaces an app's current data; "
        "--merge adds the documents to it (a document of an id the app holds replaces it, none is deleted). "
        "Whatever stops an import (an error, SIGTERM, Ctrl-C, a killed process, Redis not answering), the app "
        "ends with its old data or the new; --recover [APP] puts the old data back after an import that was "
        "killed or whose rollback could not reach Redis. See docs/data-exchange.md."
    )

    def add_arguments(self, parser):
        cli.add_arguments(parser, "import")
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--replace", action="store_true", help="replace the data an app holds now")
        mode.add_argument(
            "--merge", action="store_true", help="add the documents to the app's data, replacing those of the same id"
        )
        parser.add_argument(
            "--recover",
            nargs="?",
            const="",
            default=None,
            metavar="APP",
            help="roll back an interrupted import (of APP, or of every app) to the data held before it",
        )

    def handle(self, *args, directory, only, replace, merge, recover, verbosity, **options):
        if recover is not None:
            return self.recover(recover or directory)
        base, only = cli.folder_and_apps(directory, only, "import")
        known = runner.exchanges()
        if not base.is_dir():
            raise CommandError(f"{base}: no such directory")
        chosen = [app for app in (only or known) if (base / app).is_dir() or only]
        if not chosen:
            raise CommandError(f"{base} holds no app's export (expected {', '.join(f'{a}/' for a in known)})")
        with _signals_stop():
            for app in chosen:
                self.import_app(app, base, replace, merge, verbosity)
        self.stdout.write(self.style.SUCCESS(f"Imported {', '.join(chosen)} from {base}."))

    def import_app(self, app, base, replace, merge, verbosity):
        with Bars(self.stderr._out, verbosity > 0) as bars:
            try:
                plan = runner.restore(app, base / app, replace=replace, merge=merge, bar=bars)
            except runner.Refused as exc:
                bars.close()
                lines = "\n".join(exc.plan.report.refusal_lines())
                raise CommandError(f"{app}: {exc.plan.report.refused} refusal(s), nothing imported:\n{lines}") from None
            except (runner.Occupied, runner.Interrupted, runner.Unrestorable, journal.UnderWay) as exc:
                raise CommandError(f"{app}: {exc}") from None
            except runner.RollbackFailed as exc:
                bars.close()
                raise CommandError(f"{app}: the import stopped, and {exc}") from None
            except Stopped as stop:
                bars.close()
                raise CommandError(
                    f"{app}: stopped by {stop}: the import was rolled back, the app holds what it held before.",
                    returncode=128 + stop.signum,
                ) from None
        for line in plan.report.rewrite_lines():
            self.stdout.write(f"{app}: normalized {line}")
        listed = ", ".join(f"{n} {name}" for name, n in plan.report.counts.items())
        self.stdout.write(f"{app}: imported {listed}")
        if plan.signal:
            name = signal.Signals(plan.signal).name
            raise CommandError(f"{app}: imported; stopped by {name} before anything else", returncode=128 + plan.signal)

    def recover(self, app):
        if app and app not in runner.exchanges():
            raise CommandError(f"no import format for {app}; known: {', '.join(runner.exchanges())}")
        with _signals_stop():
            try:
                recovered = runner.recover(app or None)
            except (runner.RollbackFailed, journal.UnderWay) as exc:
                raise CommandError(str(exc)) from None
            except Stopped as stop:
                raise CommandError(f"stopped by {stop}: run --recover again", returncode=128 + stop.signum) from None
        if not recovered:
            self.stdout.write("nothing to recover")
            return
        for name in recovered:
            self.stdout.write(self.style.SUCCESS(f"{name}: rolled back to the data it held before the import."))


class _signals_stop:
    """SIGTERM and SIGINT raise ``Stopped`` where the import runs, once: a second signal while it
    rolls back is ignored, so the rollback completes (SIGKILL still stops everything; the journal
    then lets ``--recover`` finish the work)."""

    def __enter__(self):
        self.raised = False
        self.previous = {number: signal.signal(number, self.stop) for number in (signal.SIGINT, signal.SIGTERM)}

    def stop(self, signum, frame):
        if not self.raised:
            self.raised = True
            raise Stopped(signum)

    def __exit__(self, *exc):
        for number, handler in self.previous.items():
            signal.signal(number, handler)
