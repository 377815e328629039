"""Load the demo data of every app (or some), deterministically."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from tqdm import tqdm

from config import seeding, store
from config.keyspace import keyspace


class Command(BaseCommand):
    help = "Seed each app's demo data through its store: deterministic, pipelined."

    def add_arguments(self, parser):
        parser.add_argument("--scale", choices=seeding.SCALES, default="demo")
        parser.add_argument("--only", nargs="+", metavar="APP", help="seed only these apps")
        parser.add_argument("--reset", action="store_true", help="delete the apps' keys first (SCAN + UNLINK)")

    def handle(self, *args, scale, only, reset, verbosity, **options):
        known = list(seeding.registry.seeders)
        unknown = sorted(set(only or ()) - set(known))
        if unknown:
            raise CommandError(f"no seeder for {', '.join(unknown)}; known: {', '.join(known) or 'none'}")
        seeders = seeding.registry.ordered(only)
        total = 0
        for seeder in seeders:
            if reset:
                removed = store.delete_prefix(keyspace.prefix(seeder.app))
                if verbosity:
                    self.stdout.write(f"{seeder.app}: removed {removed} keys")
            with tqdm(
                total=seeder.estimate(scale) or None,
                desc=f"{seeder.app:<9}",
                unit="rec",
                disable=verbosity < 1,
                file=self.stderr._out,
            ) as bar:
                written = seeder.run(seeding.context(seeder.app, scale, bar.update))
            total += written
            if verbosity:
                self.stdout.write(f"{seeder.app}: {written} records")
        store.set_seed_marker(scale, [s.app for s in seeders], timezone.now())
        if verbosity:
            self.stdout.write(self.style.SUCCESS(f"Seeded {total} records at scale {scale!r}."))
