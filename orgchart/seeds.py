"""Demo data: an org tree with locations, and temperature readings per location.

Demo: about 200 employees in 3 locations, 7 days of 6-second readings each. Large: 10,000
employees about 8 levels deep in 20 locations, a year of 6-second readings (about 5.26 million
samples) for the first location and 7 days for the others. Deterministic: ``ctx.rng`` and
``ctx.now`` only. The graph goes through ``store.import_graph``'s bulk path (names checked first,
then deep pipelines: seeding fills a store nobody else writes to), the readings through
``store.record_readings`` (as a live feed).
"""

from __future__ import annotations

from config.seeding import SeedContext, seeder
from orgchart import sensorfeed, store
from orgchart.documents import fold
from orgchart.importing import OrgData, Person

FIRST = (
    "Ada", "Alan", "Amir", "Ana", "Ben", "Bo", "Carla", "Chen", "Dana", "Diego", "Elif", "Emil", "Eva",
    "Farah", "Femi", "Gil", "Grace", "Hana", "Ivan", "Iris", "Jon", "Juno", "Kai", "Kira", "Lars", "Lena",
    "Luis", "Maya", "Mia", "Nia", "Noor", "Omar", "Otto", "Pia", "Priya", "Quinn", "Raj", "Rosa", "Sam",
    "Sara", "Tariq", "Tess", "Uma", "Vera", "Wen", "Yara", "Yusuf", "Zoe",
)  # fmt: skip
LAST = (
    "Abe", "Baker", "Berg", "Cruz", "Dahl", "Diaz", "Eng", "Evans", "Fox", "Garcia", "Gray", "Hall", "Ito",
    "Jensen", "Khan", "Kim", "Lee", "Lund", "Mart", "Moreau", "Nagy", "Novak", "Okafor", "Ortiz", "Park",
    "Patel", "Quinn", "Rossi", "Sato", "Silva", "Singh", "Smith", "Tan", "Turner", "Vance", "Wang", "Weber",
    "Xu", "Young", "Zhou",
)  # fmt: skip
TITLES = (
    "Chief Executive", "Vice President", "Director", "Senior Manager", "Manager", "Team Lead",
    "Senior Engineer", "Engineer", "Associate", "Intern",
)  # fmt: skip
CITIES = (
    "Seattle", "Austin", "London", "Berlin", "Toronto", "Singapore", "Sydney", "Paris", "Madrid", "Tokyo",
    "Dublin", "Chicago", "Denver", "Lisbon", "Oslo", "Seoul", "Nairobi", "Lima", "Warsaw", "Boston",
)  # fmt: skip
SCALE = {
    "demo": {"people": 200, "locations": 3, "branching": (2, 5), "year_for_first": False},
    "large": {"people": 10_000, "locations": 20, "branching": (2, 5), "year_for_first": True},
}
INTERVAL = 6
DAYS = 7


def _estimate(scale: str) -> int:
    spec = SCALE[scale]
    samples = spec["locations"] * DAYS * 86400 // INTERVAL
    if spec["year_for_first"]:
        samples += (365 - DAYS) * 86400 // INTERVAL
    return spec["people"] + samples


def build(ctx: SeedContext) -> OrgData:
    """A tree filled level by level, 2 to 5 reports per manager: about 8 levels for 10,000 people."""
    spec = SCALE[ctx.scale]
    data = OrgData()
    for city in CITIES[: spec["locations"]]:
        data.locations[fold(city)] = city
    sites = list(data.locations)
    level, depth = [None], 0
    while len(data.people) < spec["people"]:
        below = []
        for boss in level:
            for _ in range(1 if boss is None else ctx.rng.randint(*spec["branching"])):
                if len(data.people) >= spec["people"]:
                    break
                name = f"{ctx.rng.choice(FIRST)} {ctx.rng.choice(LAST)}"
                if fold(name) in data.people:
                    name = f"{name} {len(data.people)}"
                site = data.people[boss].location if boss and ctx.rng.random() < 0.7 else ctx.rng.choice(sites)
                data.people[fold(name)] = Person(
                    name, TITLES[min(depth, len(TITLES) - 1)], boss, site, ctx.rng.random() < 0.9
                )
                below.append(fold(name))
        level, depth = below, depth + 1
    return data


@seeder("orgchart", order=40, estimate=_estimate)
def seed(ctx: SeedContext) -> int:
    data = build(ctx)
    done = store.import_graph(data, actor=store.Actor("seed"), atomic=False)
    ctx.progress(done.employees)
    end = int(ctx.now.timestamp())
    written = 0
    for i in range(done.locations):
        location = done.first_location + i
        days = 365 if i == 0 and SCALE[ctx.scale]["year_for_first"] else DAYS
        written += sensorfeed.history(location, end, days, INTERVAL, ctx.rng, ctx.progress)
    return done.employees + done.locations + written
