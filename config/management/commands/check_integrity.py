"""Run every registered invariant; exit 1 if any is violated."""

import sys
import time

from django.core.management.base import BaseCommand

from config.invariants import registry


class Command(BaseCommand):
    help = "Check the invariants of the derived data in Redis (counters, copies, indexes, caps)."

    def add_arguments(self, parser):
        parser.add_argument("--only", nargs="+", metavar="APP")
        parser.add_argument("--repair", action="store_true", help="rebuild derived data where a check fails")

    def handle(self, *args, only, repair, verbosity, **options):
        failures = 0
        invariants = registry.for_apps(only)
        for inv in invariants:
            if verbosity > 1:
                self.stdout.write(f"{inv.app}: {inv.name} …", ending="")
                self.stdout.flush()
            started = time.monotonic()
            found = list(inv.check())
            if found and repair and inv.repair:
                inv.repair()
                self.stdout.write(f"repaired {inv.app}: {inv.name}")
                found = list(inv.check())
            if verbosity > 1:
                self.stdout.write(
                    f" {'ok' if not found else f'{len(found)} violation(s)'} ({time.monotonic() - started:.1f} s)"
                )
            for violation in found:
                keys = f"  [{', '.join(violation.keys)}]" if violation.keys else ""
                self.stdout.write(self.style.ERROR(f"{inv.app}: {inv.name}: {violation.message}{keys}"))
            failures += len(found)
        if failures:
            self.stdout.write(self.style.ERROR(f"{failures} violation(s) in {len(invariants)} invariants."))
            sys.exit(1)
        self.stdout.write(self.style.SUCCESS(f"All {len(invariants)} invariants hold."))
