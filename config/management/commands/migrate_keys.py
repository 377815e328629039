"""Move data written under an earlier key layout (layout 1: no hash tags, one activity stream; layout 2:
the sensor data in the org chart's slot) to today's names."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config import keylayout, store
from config.redis import on_cluster
from config.store import layout as layout_store


class Command(BaseCommand):
    help = (
        "Rename every key of an earlier layout (1: before hash tags; 2: before each location's sensor data had "
        "its own) to today's name, and move the events of layout 1's one "
        "old activity stream into the stream of their slot group, keeping their ids. Batches of SCAN, each "
        "a pipeline of RENAMENX; events a transaction per batch. Idempotent and resumable: run it again "
        "after a stop. Run it before the dashboard serves (make run does it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=500, help="SCAN COUNT and events per batch (default 500)")
        parser.add_argument("--dry-run", action="store_true", help="count what would move, write nothing")
        parser.add_argument(
            "--max-batches", type=int, default=0, help="stop after this many batches of each kind (0: to the end)"
        )

    def handle(self, *args, batch, dry_run, max_batches, verbosity, **options):
        if on_cluster():
            raise CommandError(
                "data of an earlier layout lives on one server (its keys share too few slots): run migrate_keys there, "
                "then move the data to the cluster with export_data and import_data (docs/cluster.md)"
            )
        finished = True
        for move in keylayout.moves():
            moved, clashes, batches, cursor = 0, [], 0, 0
            while True:
                cursor, found = layout_store.scan_step(move.glob, cursor, batch)
                pairs = [(key, new) for key in found if (new := move.rename(key))]
                if not dry_run:
                    clashes += layout_store.rename_keys(pairs)
                moved, batches = moved + len(pairs), batches + 1
                if cursor == 0 or (max_batches and batches >= max_batches):
                    break
            finished &= cursor == 0
            if moved or verbosity > 1:
                verb = "would rename" if dry_run else "renamed"
                self.stdout.write(f"{move.app}: {verb} {moved - len(clashes)} keys of an earlier layout")
            for old, new in clashes:
                self.stderr.write(f"{move.app}: {old} left as it is: {new} already exists")
        finished &= self.move_events(batch, dry_run, max_batches)
        if dry_run:
            return
        store.trim_events()
        if finished:
            layout_store.set_layout(keylayout.LAYOUT)
        else:
            self.stdout.write("stopped before the end: run migrate_keys again to go on")

    def move_events(self, batch: int, dry_run: bool, max_batches: int) -> bool:
        """The old stream's events into today's streams, oldest first; whether none is left."""
        if dry_run:
            if count := layout_store.old_event_count():
                self.stdout.write(f"events: would move {count} into the streams of their slot groups")
            return True
        moved = dropped = batches = 0
        while entries := layout_store.old_events(batch):
            routed = [(entry_id, fields, keylayout.event_route(fields)) for entry_id, fields in entries]
            added = layout_store.move_events(routed)
            moved, dropped, batches = moved + added, dropped + len(entries) - added, batches + 1
            if max_batches and batches >= max_batches:
                return layout_store.old_event_count() == 0
        layout_store.drop_old_stream()
        if moved or dropped:
            kept = f" (the last {settings.EVENTS_MAXLEN} of each kept)" if moved else ""
            tail = f"; {dropped} dropped: their stream already held newer events" if dropped else ""
            self.stdout.write(f"events: moved {moved} into the streams of their slot groups{kept}{tail}")
        return True
