"""Upgrade the remaining schema-1 instructors and students to schema 2, in SCAN batches."""

from django.core.management.base import BaseCommand
from tqdm import tqdm

from config.activity import Actor
from school import store
from school.keys import PEOPLE

MIGRATION = Actor("migrate_schema")


class Command(BaseCommand):
    help = (
        "Upgrade schema-1 people to schema 2 through SCAN, one WATCHed transaction per batch (its keys come from "
        "SCAN). Idempotent and resumable (the cursor is saved with each batch); safe while the app serves."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=500, help="SCAN COUNT per batch (default 500)")
        parser.add_argument("--dry-run", action="store_true", help="count schema-1 documents, write nothing")
        parser.add_argument("--only", choices=PEOPLE, nargs="+", default=list(PEOPLE))
        parser.add_argument(
            "--max-batches", type=int, default=0, help="stop after this many batches (0: run to the end)"
        )

    def handle(self, *args, batch, dry_run, only, max_batches, verbosity, **options):
        for entity in only:
            counts = store.schema_counts(entity)
            cursor = 0 if dry_run else store.migration_cursor(entity)
            if cursor and verbosity:
                self.stdout.write(f"{entity}: resuming at SCAN cursor {cursor}")
            done = scanned = batches = 0
            with tqdm(
                total=counts.get("1", 0) or None,
                desc=f"{entity:<10}",
                unit="doc",
                disable=verbosity < 1,
                file=self.stderr._out,
            ) as bar:
                while True:
                    step = store.migrate_step(entity, cursor, batch, actor=MIGRATION, dry_run=dry_run)
                    cursor, batches = step.cursor, batches + 1
                    done, scanned = done + step.upgraded, scanned + step.scanned
                    bar.update(step.upgraded)
                    if cursor == 0 or (max_batches and batches >= max_batches):
                        break
            verb = "would upgrade" if dry_run else "upgraded"
            tail = "" if cursor == 0 else f"; stopped at cursor {cursor}, run again to resume"
            self.stdout.write(f"{entity}: scanned {scanned}, {verb} {done} to schema 2{tail}")
