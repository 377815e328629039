"""One generated data set, deterministic, loaded into both sides.

The generators are the apps' own seeders' (catalog products and reviews, CMS
histories, the org tree, the sensor feed), driven by one ``random.Random`` per
app seeded from the scale's name, so both sides get exactly the same records.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from catalog import seeds as catalog_seeds
from catalog.documents import Product
from catalog.store import NewReview
from cms import seeds as cms_seeds
from cms.documents import Post
from config.seeding import SEED_EPOCH, SeedContext
from orgchart import seeds as org_seeds
from orgchart import sensorfeed
from orgchart.importer import OrgData

DAY = 86_400


@dataclass(frozen=True)
class Scale:
    name: str
    products: int
    reviews_per_product: int  # on average: each product gets 0 to twice this many
    posts: int
    saves_per_post: int  # each save that changes something is one more version
    org: str  # the org seeder's scale: "demo" (200 people) or "large" (10,000)
    school: str  # the school seeder's scale: "demo" (1,000 students) or "large" (200,000)
    sample_days: int  # of readings for one location's sensor
    interval: int  # seconds between readings
    words: int = 40  # per post body


SCALES = {
    # For the tests: seconds, not minutes.
    "tiny": Scale("tiny", 30, 4, posts=6, saves_per_post=4, org="demo", school="demo", sample_days=2, interval=60),
    "demo": Scale(
        "demo", 2_000, 10, posts=300, saves_per_post=8, org="demo", school="demo", sample_days=365, interval=60
    ),
    # The e-book's sizes: 100,000 products, a million reviews, a year of 6-second samples.
    "large": Scale(
        "large",
        100_000,
        10,
        posts=20_000,
        saves_per_post=20,
        org="large",
        school="large",
        sample_days=365,
        interval=6,
        words=30,
    ),
}


@dataclass
class Dataset:
    scale: Scale
    products: list[tuple[Product, list[NewReview]]] = field(default_factory=list)
    posts: list[list[Post]] = field(default_factory=list)  # each post's versions, oldest first
    org: OrgData = field(default_factory=OrgData)
    now: float = SEED_EPOCH.timestamp()

    @property
    def reviews(self) -> int:
        return sum(len(r) for _, r in self.products)

    @property
    def revisions(self) -> int:
        return sum(len(v) - 1 for v in self.posts)

    def readings(self, location: int) -> Iterator[list[tuple[int, float]]]:
        """The sensor's readings, a day per chunk: generated afresh on each call, the same each time."""
        rng = random.Random(f"bench:{self.scale.name}:sensor")
        base = 14 + (location * 7919 % 100) / 12
        end = int(self.now)
        start = end - self.scale.sample_days * DAY
        for chunk in range(start, end, DAY):
            yield list(sensorfeed.readings(rng, base, chunk, min(chunk + DAY, end), self.scale.interval))

    @property
    def samples(self) -> int:
        return self.scale.sample_days * DAY // self.scale.interval


def school_context(scale: Scale) -> SeedContext:
    """The school is seeded by its own seeder, whose records are then read back for SQL."""
    return _context("school", scale.name, scale.school)


def _context(app: str, scale: str, seed_scale: str | None = None) -> SeedContext:
    return SeedContext(app, seed_scale or scale, random.Random(f"bench:{scale}:{app}"))


def generate(scale: Scale) -> Dataset:
    data = Dataset(scale)
    ctx = _context("catalog", scale.name)
    for n in range(1, scale.products + 1):
        product = catalog_seeds._product(ctx.rng, n, data.now - (scale.products - n) * 60)
        count = ctx.rng.randint(0, 2 * scale.reviews_per_product)
        data.products.append((product, catalog_seeds._reviews(ctx.rng, count, data.now)))
    ctx = _context("cms", scale.name)
    for post_id in range(1, scale.posts + 1):
        data.posts.append(cms_seeds._history(ctx, post_id, scale.saves_per_post, scale.words))
    data.org = org_seeds.build(_context("orgchart", scale.name, scale.org))
    return data
