"""Demo data: an electronics store of every type, with tags and reviews.

Demo is about 200 products and 2,000 reviews; large is 100,000 products and 1,000,000 reviews. Products are
generated 2,000 at a time, their ids drawn in one round trip, and each batch of 200 goes out with its reviews
as one script through ``store.write_batches`` (the review machinery's bulk writer), the next batch built while
Redis runs the last. It writes exactly what the interactive add and review paths write, so every invariant
holds after a seed.
"""

from __future__ import annotations

from decimal import Decimal

from catalog import store, types
from catalog.documents import Product
from catalog.store import NewReview
from config.activity import Actor
from config.seeding import SeedContext, seeder

SIZES = {"demo": (200, 2_000), "large": (100_000, 1_000_000)}
BATCH = 200  # products (with their reviews) a script
CHUNK = 10 * BATCH  # products generated, and their ids drawn, at once

BRANDS = {
    "earbuds": ["Sonique", "AuraSound", "Pulse", "Beatline", "Quietude"],
    "game_console": ["Nintara", "PlayBox", "Vertex", "Arcadia"],
    "monitor": ["ViewPro", "Pixelia", "ClearEdge", "Lumen"],
    "phone": ["Nova", "Orbit", "Pear", "Zenith", "Helio"],
    "appliance": ["HomeMate", "Kitchenix", "Brava", "Cleanwise"],
}
NOUNS = {
    "earbuds": ["Buds", "Pods", "Air", "Sport", "Studio"],
    "game_console": ["Station", "Switcher", "Box", "Portable", "Arcade"],
    "monitor": ["Display", "Vision", "Panorama", "Ultra", "Curve"],
    "phone": ["Phone", "Mini", "Max", "Lite", "Fold"],
    "appliance": ["Blender", "Kettle", "Toaster", "Air Fryer", "Vacuum", "Espresso"],
}
TYPE_TAGS = {
    "earbuds": ["wireless", "noise-cancelling", "waterproof", "sport"],
    "game_console": ["gaming", "4k", "handheld", "vr-ready"],
    "monitor": ["4k", "gaming", "hdr", "usb-c"],
    "phone": ["5g", "dual-sim", "wireless", "waterproof"],
    "appliance": ["kitchen", "smart-home", "energy-saving", "compact"],
}
COMMON_TAGS = ["bestseller", "new", "refurbished", "premium", "budget", "eco", "gift"]
AUTHORS = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jo", "Kofi", "Lea", "Mo", "Nia"]
COMMENTS = {
    1: ["Broke within a week.", "Would not buy again.", "Not as described."],
    2: ["Disappointing for the price.", "Works, barely.", "Support was slow."],
    3: ["Does the job.", "Average, nothing special.", "Fine for everyday use."],
    4: ["Very good, small quirks.", "Great value.", "Would recommend."],
    5: ["Excellent!", "Best purchase this year.", "Flawless, five stars."],
}
YEAR = 365 * 24 * 3600


def estimate(scale: str) -> int:
    return sum(SIZES[scale])


def _attrs(rng, kind: types.ProductType) -> dict[str, str]:
    attrs = {}
    for spec in kind.fields:
        if spec.kind == "choice":
            attrs[spec.name] = rng.choice(spec.choices)
        elif spec.kind == "int":
            attrs[spec.name] = str(rng.randint(int(spec.min_value), min(int(spec.max_value), int(spec.min_value) + 40)))
        elif spec.kind == "bool":
            attrs[spec.name] = rng.choice(("yes", "no"))
        elif spec.kind == "decimal":
            attrs[spec.name] = str(round(rng.uniform(spec.min_value, spec.max_value), 1))
        else:
            attrs[spec.name] = f"{rng.choice(['Nebula', 'Titan', 'Quark', 'Vega'])} {rng.randint(2, 9)}00"
    return attrs


def _product(rng, n: int, at: float) -> Product:
    kind = rng.choice(list(types.TYPES.values()))
    brand = rng.choice(BRANDS[kind.slug])
    name = f"{brand} {rng.choice(NOUNS[kind.slug])} {rng.randint(1, 99)}"
    tags = rng.sample(TYPE_TAGS[kind.slug], rng.randint(1, 3)) + rng.sample(COMMON_TAGS, rng.randint(0, 2))
    sku = f"{kind.slug[:3].upper()}-{n:07d}"
    return Product(
        type=kind.slug,
        name=name,
        brand=brand,
        sku=sku,
        model=f"{brand[:2].upper()}{rng.randint(100, 999)}",
        price=Decimal(rng.randint(1900, 199900)) / 100,
        image=f"/static/img/products/{kind.slug}.svg",  # served by the dashboard itself
        description=f"The {name} by {brand}: a {kind.label} for everyday use.",
        manufacturer=f"{brand} Industries",
        dimensions=f"{rng.randint(2, 60)} × {rng.randint(2, 40)} × {rng.randint(1, 30)} cm",
        weight=f"{rng.randint(5, 9000)} g",
        images=[f"/static/img/products/{kind.slug}.svg" for _ in range(rng.randint(0, 4))],
        videos=[f"https://video.example.com/{sku}.mp4"] if rng.random() < 0.2 else [],
        tags=sorted(set(tags)),
        attrs=_attrs(rng, kind),
        created_at=at,
    )


def _reviews(rng, count: int, now: float) -> list[NewReview]:
    quality = rng.uniform(1.5, 5)
    reviews = []
    for _ in range(count):
        rating = max(1, min(5, round(rng.gauss(quality, 1))))
        at = round(now - rng.uniform(0, YEAR), 3)
        reviews.append(NewReview(rng.choice(AUTHORS), rating, rng.choice(COMMENTS[rating]), at))
    return reviews


@seeder("catalog", order=10, estimate=estimate)
def seed(ctx: SeedContext) -> int:
    products, reviews = SIZES[ctx.scale]
    now = ctx.now.timestamp()
    per_product = reviews // products
    base = store.last_ids()["product"]  # SKUs carry the number: a second seed without --reset never reuses one
    written = 0
    actor = Actor("seed")
    for start in range(0, products, CHUNK):
        chunk = []
        for n in range(start, min(start + CHUNK, products)):
            product = _product(ctx.rng, base + n + 1, now - (products - n) * 60)
            count = ctx.rng.randint(0, 2 * per_product)  # about ``reviews`` in all
            chunk.append((product, _reviews(ctx.rng, count, now)))
        store.write_batches(chunk, actor=actor, at=now, batch=BATCH)
        records = len(chunk) + sum(len(r) for _, r in chunk)
        written += records
        ctx.progress(records)
    return written
