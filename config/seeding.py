"""Registry of the seeders that ``manage.py seed`` runs, one per app.

An app's ``seeds.py`` registers one function:

    @seeder("catalog", order=10)
    def seed(ctx: SeedContext) -> int:
        ...  # write through the app's store, pipelined; return records written

Seeding is deterministic: ``ctx.rng`` is seeded from the app and the scale, and ``ctx.now`` is a
fixed instant, so two runs on an empty Redis write the same keys with the same values.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

SCALES = ("demo", "large")
SEED_EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass
class SeedContext:
    app: str
    scale: str
    rng: random.Random
    now: datetime = SEED_EPOCH
    progress: Callable[[int], None] = lambda n: None  # advance the progress bar by n records

    @property
    def large(self) -> bool:
        return self.scale == "large"


@dataclass(frozen=True)
class Seeder:
    app: str
    run: Callable[[SeedContext], int]
    order: int = 50
    estimate: Callable[[str], int] = lambda scale: 0  # records expected, for the progress bar


@dataclass
class Registry:
    seeders: dict[str, Seeder] = field(default_factory=dict)

    def add(self, app: str, order: int = 50, estimate: Callable[[str], int] | None = None):
        def decorate(run):
            self.seeders[app] = Seeder(app, run, order, estimate or (lambda scale: 0))
            return run

        return decorate

    def ordered(self, apps=None) -> list[Seeder]:
        chosen = [s for s in self.seeders.values() if not apps or s.app in apps]
        return sorted(chosen, key=lambda s: (s.order, s.app))


registry = Registry()
seeder = registry.add


def context(app: str, scale: str, progress=None) -> SeedContext:
    ctx = SeedContext(app, scale, random.Random(f"{app}:{scale}"))
    if progress is not None:
        ctx.progress = progress
    return ctx
