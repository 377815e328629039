"""The Redis side: load the data set through the apps' store bulk paths, answer through their reads.

Every question is answered by the function the app's own screen calls, so the
round trips counted here are the screens' round trips. Results come back as
plain tuples, in the shape ``sqlside`` returns, for the correctness check.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from catalog import store as catalog
from catalog.store import ProductQuery
from cms import store as cms
from config.activity import Actor, Event
from config.benchmark.dataset import Dataset, school_context
from config.redis import client, is_dev_server
from orgchart import store as org
from school import conf as school_conf
from school import seeds as school_seeds
from school import store as school
from school.documents import Course, Person

BENCH = Actor("bench", link=lambda entity, pk: f"/school/{entity}s/{pk}/")

BATCH = 200  # products (with their reviews) per MULTI/EXEC, as the catalog seeder
POST_BATCH = 100
PAGE = 25
HISTORY_PAGE = 10
MEMORY_PROBE = 5_000  # products written without reviews, to tell a product's bytes from a review's
ENROLMENT_PROBE = 100_000  # enrolments (whole rosters) written alone on another database, for their bytes


def used_memory() -> int:
    """INFO used_memory of the scratch server: what the records cost, from the server's own count."""
    return int(client().info("memory")["used_memory"])


def flush() -> None:
    """Empty the scratch server; refuses the development data, whatever points the client there."""
    if is_dev_server():
        raise RuntimeError("refusing to flush the development Redis")
    client().flushdb()


@dataclass
class Load:
    """What loading one app cost: records written, seconds, and INFO used_memory growth."""

    app: str
    records: int
    seconds: float
    bytes: int
    per_record: dict[str, float] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0


@dataclass
class SchoolData:
    """The school as its seeder wrote it, read back through its store for the SQL side."""

    courses: list[tuple[int, str, str, int]] = field(default_factory=list)  # id, code, title, capacity
    instructors: list[tuple[int, str, str]] = field(default_factory=list)  # id, name, email
    students: list[tuple[int, str, str]] = field(default_factory=list)
    teaching: list[tuple[int, int]] = field(default_factory=list)  # course, instructor
    enrolments: list[tuple[int, int]] = field(default_factory=list)  # course, student


@dataclass
class Loaded:
    """Ids the loads handed out, for choosing what the operations ask about."""

    loads: list[Load] = field(default_factory=list)
    first_employee: int = 0
    first_location: int = 0
    school: SchoolData = field(default_factory=SchoolData)


def _seed_event(app: str, entity: str) -> Event:
    return Event("bench", "created", app, entity, "", "", "")


def _timed(app: str, records: int, write) -> Load:
    before, started = used_memory(), time.perf_counter()
    write()
    seconds = time.perf_counter() - started
    return Load(app, records, seconds, used_memory() - before)


def _write_products(items) -> None:
    for start in range(0, len(items), BATCH):
        catalog.write_batch(items[start : start + BATCH], actor=Actor("bench"), at=items[start][0].created_at)


def product_bytes(data: Dataset) -> float:
    """Bytes per product without reviews, measured on a probe that is flushed afterwards."""
    probe = [(product, []) for product, _ in data.products[:MEMORY_PROBE]]
    flush()
    load = _timed("probe", len(probe), lambda: _write_products(probe))
    flush()
    return load.bytes / max(1, len(probe))


def _people(entity: str) -> list[tuple[int, str, str]]:
    people = []
    for batch in school.scan_documents(entity):
        people += [(p.id, p.name, p.contact) for p in (Person.from_hash(pk, fields) for pk, fields in batch)]
    return sorted(people)


def read_school() -> SchoolData:
    courses = []
    for batch in school.scan_documents("course"):
        courses += [(c.id, c.code, c.title, c.capacity) for c in (Course.from_hash(pk, f) for pk, f in batch)]
    return SchoolData(
        sorted(courses),
        _people("instructor"),
        _people("student"),
        sorted((c, i) for c, ids in school.relation_members("teaching", "course") for i in ids),
        sorted((c, s) for c, ids in school.relation_members("enrolment", "course") for s in ids),
    )


def enrolment_bytes(enrolments: list[tuple[int, int]], other_database) -> float:
    """Bytes per enrolment (both sets of the pair): whole rosters written alone, through the store's
    seeding path, on another database of the same server, which is flushed afterwards."""
    probe = enrolments[:ENROLMENT_PROBE]
    while len(probe) < len(enrolments) and enrolments[len(probe)][0] == probe[-1][0]:
        probe.append(enrolments[len(probe)])  # whole rosters: a set's encoding depends on its size
    with other_database():
        before = used_memory()
        for start in range(0, len(probe), 5_000):
            tx = school.transaction()
            for course, student in probe[start : start + 5_000]:
                school.queue_enrolment(tx, course, student)
            tx.execute()
        return (used_memory() - before) / max(1, len(probe))


def load_school(data: Dataset, other_database) -> tuple[Load, SchoolData]:
    """The school's own seeder writes it; its records are then read back for SQLite."""
    written = []
    done = _timed("school", 0, lambda: written.append(school_seeds.seed(school_context(data.scale))))
    done.records = written[0]
    records = read_school()
    done.per_record = {"enrolment": enrolment_bytes(records.enrolments, other_database)}
    return done, records


def load(data: Dataset, other_database) -> Loaded:
    loaded = Loaded()
    per_product = product_bytes(data)
    products, reviews = len(data.products), data.reviews
    done = _timed("catalog", products + reviews, lambda: _write_products(data.products))
    done.per_record = {"product": per_product, "review": (done.bytes - per_product * products) / max(1, reviews)}
    loaded.loads.append(done)
    assert [p.id for p, _ in data.products] == list(range(1, products + 1)), "the scratch Redis was not empty"

    def write_posts():
        first = cms.reserve_post_ids(len(data.posts))
        assert first == data.posts[0][0].id, "the scratch Redis was not empty"
        for start in range(0, len(data.posts), POST_BATCH):
            cms.load_posts(data.posts[start : start + POST_BATCH], actor=Actor("bench"))

    done = _timed("cms", len(data.posts) + data.revisions, write_posts)
    done.per_record = {"post (with its revisions)": done.bytes / max(1, len(data.posts))}
    loaded.loads.append(done)

    imported = []
    done = _timed(
        "orgchart", len(data.org.people), lambda: imported.append(org.import_graph(data.org, org.Actor("bench")))
    )
    done.per_record = {"employee": done.bytes / max(1, len(data.org.people))}
    loaded.loads.append(done)
    loaded.first_employee, loaded.first_location = imported[0].first_employee, imported[0].first_location

    samples = []
    location = loaded.first_location
    done = _timed(
        "sensor",
        data.samples,
        lambda: samples.extend(org.record_readings(location, c) for c in data.readings(location)),
    )
    done.records = sum(samples)
    done.per_record = {"sample": done.bytes / max(1, done.records)}
    loaded.loads.append(done)

    done, loaded.school = load_school(data, other_database)
    loaded.loads.append(done)
    return loaded


# --- the questions ----------------------------------------------------------------------------


def _cents(price) -> int | None:
    return None if price is None else int(price * 100)


def product_list_by_rating() -> tuple:
    """1. The list page sorted by average rating: the aggregate pattern's sort index, one transaction."""
    page = catalog.list_products(ProductQuery(order="-rating", limit=PAGE))
    rows = [(r.id, r.name, r.brand, _cents(r.price), r.num_reviews, r.average) for r in page.rows]
    return page.total, rows


def product_detail(product_id: int) -> tuple:
    """2. A product with its details, images, aggregate and 3 newest reviews: one HGETALL."""
    p = catalog.get(product_id)
    recent = [(r.id, r.author, r.rating, r.comment, r.published_at) for r in p.recent]
    return (p.name, p.brand, _cents(p.price), p.description, p.manufacturer, p.images, p.num_reviews, p.average, recent)


def products_of_type(slug: str) -> tuple:
    """3. The newest products of one type with their type's own fields (polymorphic): the list's
    one transaction, a page of the type's creation index whose SORT ... GET reads the type's fields too."""
    page = catalog.list_products(ProductQuery(type=slug, limit=PAGE))
    rows = [(r.id, r.name, [value for _, value in r.type_fields]) for r in page.rows]
    return page.total, rows


def post_history(post_id: int) -> tuple:
    """6. A post with one page of its revisions, newest first: one round trip."""
    current, revisions, total = cms.history(post_id, 0, HISTORY_PAGE)
    rows = [(r.number, r.by, r.comment, r.post.updated_at, r.post.title) for r in revisions]
    return current.title, current.version, total, rows


def reports_at_depth(manager: int, depth: int) -> tuple:
    """7a. The ids at each level below a manager: one SUNION round trip per level."""
    return tuple(tuple(sorted(level)) for level in org.reports_by_depth(manager, depth))


def subtree(manager: int) -> tuple:
    """7b. Every level below a manager, to the bottom."""
    return tuple(tuple(sorted(level)) for level in org.subtree(manager))


def monthly_temperature(location: int) -> tuple:
    """8. A year of monthly averages: the location page's two reads (its newest reading, then the charts,
    whose monthly rollups are 12 HMGETs; the same round trip also reads 24 hourly and 30 daily rollups)."""
    overview = org.location_overview(location, 0, PAGE)
    charts = org.sensor_charts(location, overview.latest)
    return tuple((m.start.strftime("%Y%m"), m.count, m.sum / m.count / 100) for m in charts.months)


def students_in_both(first: int, second: int) -> tuple:
    """4. SINTERSTORE of the two rosters and one page of it, all inside Redis; then the page's names."""
    found = school.algebra("inter", [first, second], 0, PAGE)
    sizes = sorted(found.sizes.items())
    return found.total, sizes, [(p.id, p.name) for p in found.students]


def courses_of_instructor(instructor: int) -> tuple:
    """5. The instructor's course set (bounded, read whole) joined with the courses' list fields: one round trip."""
    detail = school.person_detail("instructor", instructor)
    return detail.person.name, [(c.id, c.code, c.title) for c in detail.courses]


def enrol(course: int, student: int) -> None:
    """10. Enrol within both bounds: one script checks and writes both sides and the event."""
    school.enrol(course, student, actor=BENCH)


def enrolment_of(course: int, student: int) -> tuple:
    """After an enrolment: the course's head count and the student's courses."""
    return school.course_detail(course, 0, 1).enrolled, [c.id for c in school.person_detail("student", student).courses]


def max_courses_per_student() -> int:
    return school_conf.max_courses_per_student()


def add_review(product_id: int, n: int, at: float) -> int:
    """9. A review with everything derived from it (embed, aggregate, sort indexes, event): one WATCHed transaction."""
    actor = Actor("bench", link=lambda entity, object_id: f"/catalog/products/{product_id}/")
    return catalog.add_review(product_id, f"bench{n % 7}", 1 + n % 5, f"Benchmark review {n}.", actor=actor, at=at)
