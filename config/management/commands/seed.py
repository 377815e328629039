"""Load the demo data of every app (or some), deterministically."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from tqdm import tqdm

from config import seeding, store
from config.keyspace import keyspace


class Command(BaseCommand):
    help = (
        "Seed each app's demo data through its store: deterministic, pipelined. "
        "An app that already holds data is refused (nothing is written to any app) unless --reset is given."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--scale",
            choices=seeding.SCALES,
            default="demo",
            help="demo: a few hundred records per app, seconds; large: hundreds of thousands per app, "
            "for the benchmark and the key browser at size (minutes, several GB of memory). Default: demo.",
        )
        parser.add_argument(
            "--only",
            nargs="+",
            action="extend",
            metavar="APP",
            help=f"seed only these apps (any of: {', '.join(seeding.registry.seeders) or 'none'}; "
            "--only a b or --only a --only b); default: all",
        )
        parser.add_argument(
            "--reset", action="store_true", help="delete the chosen apps' keys first (SCAN + UNLINK), then seed"
        )

    def handle(self, *args, scale, only, reset, verbosity, **options):
        known = list(seeding.registry.seeders)
        unknown = sorted(set(only or ()) - set(known))
        if unknown:
            raise CommandError(f"no seeder for {', '.join(unknown)}; known: {', '.join(known) or 'none'}")
        seeders = seeding.registry.ordered(only)
        if not reset:
            holding = [s.app for s in seeders if store.holds_prefix(keyspace.prefix(s.app))]
            if holding:
                raise CommandError(
                    f"{', '.join(holding)} already hold{'s' if len(holding) == 1 else ''} data; nothing was seeded. "
                    "Seeding twice would duplicate it: use --reset to replace it, or --only to seed other apps."
                )
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
