"""Run every registered invariant; exit 1 if any is violated."""

import sys

from django.core.management.base import BaseCommand

from config.invariants import registry


class Command(BaseCommand):
    help = "Check the invariants of the derived data in Redis (counters, copies, indexes, caps)."

    def add_arguments(self, parser):
        parser.add_argument("--only", nargs="+", metavar="APP")
        parser.add_argument("--repair", action="store_true", help="rebuild derived data where a check fails")

    def handle(self, *args, only, repair, **options):
        failures = 0
        invariants = registry.for_apps(only)
        for inv in invariants:
            found = list(inv.check())
            if found and repair and inv.repair:
                inv.repair()
                self.stdout.write(f"repaired {inv.app}: {inv.name}")
                found = list(inv.check())
            for violation in found:
                keys = f"  [{', '.join(violation.keys)}]" if violation.keys else ""
                self.stdout.write(self.style.ERROR(f"{inv.app}: {inv.name}: {violation.message}{keys}"))
            failures += len(found)
        if failures:
            self.stdout.write(self.style.ERROR(f"{failures} violation(s) in {len(invariants)} invariants."))
            sys.exit(1)
        self.stdout.write(self.style.SUCCESS(f"All {len(invariants)} invariants hold."))
