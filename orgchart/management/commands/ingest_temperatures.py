"""Feed generated temperature readings through the live write path (store.record_readings)."""

import random

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from orgchart import sensorfeed, store


class Command(BaseCommand):
    help = (
        "Write generated readings for each location's sensor (or one, with --location), ending now, "
        "through the same code path a live feed uses. A year at one reading every 6 seconds is about 5.26 million."
    )

    def add_arguments(self, parser):
        parser.add_argument("--location", type=int, help="one location id (default: every location)")
        parser.add_argument("--days", type=float, default=1.0, help="how many days back from now (default 1)")
        parser.add_argument("--interval", type=int, default=6, help="seconds between readings (default 6)")
        parser.add_argument(
            "--measure", action="store_true", help="print the INFO used_memory delta per new sample (buckets + rollups)"
        )

    def handle(self, *args, location, days, interval, measure, verbosity, **options):
        if interval < 1:
            raise CommandError("--interval must be at least 1 second.")
        if not 0 < days <= 3660:
            raise CommandError("--days must be between 0 and 3660.")
        if location is not None:
            if store.get_location(location) is None:
                raise CommandError(f"There is no location #{location}.")
            targets = [location]
        else:
            targets = [pk for pk, _ in store.location_choices()]
            if not targets:
                raise CommandError("There are no locations yet: add one, seed, or import_orgchart first.")
        end = int(timezone.now().timestamp())
        before = store.used_memory() if measure else 0
        total = 0
        for pk in targets:
            written = sensorfeed.feed(pk, end, days, interval, random.Random(pk))
            total += written
            if verbosity:
                self.stdout.write(f"location {pk}: {written} new samples")
        self.stdout.write(self.style.SUCCESS(f"Ingested {total} samples for {len(targets)} location(s)."))
        if measure and total:
            delta = store.used_memory() - before
            self.stdout.write(f"used_memory grew by {delta} bytes: {delta / total:.2f} bytes per sample")
