"""Build a large org in a scratch Redis and measure a move of a quarter of it."""

import tempfile
from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import BaseCommand

from config import trace
from config.invariants import violations
from orgchart import scale, store
from orgchart.store import measure


class Command(BaseCommand):
    help = (
        "Build an org of --people (default 100,000) in a scratch redis-server through the bulk import, "
        "move a vice president with about a quarter of the org under the deepest person of another "
        "quarter, read that subtree, and report what each made the server do: commands run (scripts "
        "included) and the longest single command (SLOWLOG). Then check_integrity's org chart invariants."
    )

    def add_arguments(self, parser):
        parser.add_argument("--people", type=int, default=100_000)

    def handle(self, *args, people: int, **options):
        from config.benchmark.suite import scratch_redis

        with tempfile.TemporaryDirectory() as tmp, scratch_redis(Path(tmp)):
            data = scale.build(people)
            ids = scale.load(data)
            store.load_scripts()
            moved, target = ids["p1"], scale.deepest(ids, data, "p2")
            size = store.get_employee(moved).total + 1
            _, move = scale.cost(lambda: store.move_employee(moved, target, actor=scale.ACTOR))
            with trace.recording() as recorded:
                levels, read = scale.cost(lambda: store.subtree(moved))
            measuring = {"INFO", "CONFIG", "SLOWLOG"}  # scale.cost's own commands
            trips = [t for t in recorded.trips("data") if t.commands[0].name.split()[0] not in measuring]
            _, detail = scale.cost(lambda: store.employee_detail(ids["p0"], store.MAX_DEPTH))
            found = violations(["orgchart"])
            when = datetime.now(UTC).strftime("%Y-%m-%d")
            self.stdout.write(f"python manage.py orgchart_scale --people {people}  ({when})")
            depth = store.chain_of_command(target).depth
            self.stdout.write(f"org of {people:,}; moved {size:,} people under someone at depth {depth}")
            self.stdout.write(f"move:    {move.commands} commands; {_longest(move)}")
            self.stdout.write(
                f"subtree: {sum(map(len, levels)):,} people in {len(trips)} round trips, {read.commands} commands; "
                f"{_longest(read)}"
            )
            self.stdout.write(
                f"detail of the chief at depth {store.MAX_DEPTH}: {detail.commands} commands; {_longest(detail)}"
            )
            self.stdout.write(f"check_integrity (org chart): {len(found)} violation(s)")
            for invariant, violation in found[:10]:
                self.stdout.write(f"  {invariant.name}: {violation.message}")


def _longest(cost) -> str:
    if not cost.longest_us:
        return f"no command over {measure.THRESHOLD_US} µs (SLOWLOG)"
    over = measure.THRESHOLD_US
    return f"longest {cost.longest} {cost.longest_us} µs, median of those over {over} µs {cost.median_us} µs"
