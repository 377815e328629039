"""Demo and large data for the school: courses, instructors, students, assignments, enrolments.

Part of the people are written at schema 1, so screens show both versions and ``migrate_schema``
has work to do; bounds and capacities are respected, so ``check_integrity`` passes.
"""

from config.seeding import SeedContext, seeder
from config.store import batched
from school import conf, store
from school.documents import Course, Person, schema_one_hash

SCALES = {
    # courses, instructors, students, enrolments per student (low, high), capacity (low, high)
    "demo": (50, 20, 1_000, (1, 6), (60, 150)),
    "large": (2_000, 500, 200_000, (2, 8), (500, 1_000)),
}
SCHEMA_ONE_SHARE = 0.4
BATCH = 2_000  # documents or students per script

FIRST = (  # noqa: SIM905  (names in a sentence read better than 20 quoted strings)
    "Ada Alan Barbara Claude Donald Edsger Frances Grace Hedy Ivan John Katherine Leslie Margaret Niklaus Radia Ken "
    "Dennis Guido Linus"
).split()
LAST = (  # noqa: SIM905
    "Lovelace Turing Liskov Shannon Knuth Dijkstra Allen Hopper Lamarr Sutherland Backus Johnson Lamport Hamilton "
    "Wirth Perlman Thompson Ritchie Rossum Torvalds"
).split()
SUBJECTS = [
    ("CS", "Computer Science"), ("MA", "Mathematics"), ("PH", "Physics"), ("CH", "Chemistry"), ("BI", "Biology"),
    ("EC", "Economics"), ("HI", "History"), ("LI", "Literature"), ("PS", "Psychology"), ("AR", "Art"),
]  # fmt: skip
TOPICS = "Foundations Methods Systems Theory Practice Seminar Workshop Analysis Design Studio".split()  # noqa: SIM905


def estimate(scale: str) -> int:
    courses, instructors, students, (low, high), _ = SCALES[scale]
    return courses + instructors + students + students * (low + high) // 2 + instructors * 2


@seeder("school", order=20, estimate=estimate)
def seed(ctx: SeedContext) -> int:
    """Every batch is one bulk script (its event inside)."""
    store.load_scripts()  # the server knows the write scripts: each first write is one round trip too
    n_courses, n_instructors, n_students, per_student, capacity_range = SCALES[ctx.scale]
    rng = ctx.rng
    written = 0

    course_ids = list(store.reserve_ids("course", n_courses))
    capacity = {}
    for batch in batched(course_ids, BATCH):
        tx, documents = store.bulk_batch(), {}
        for pk in batch:
            prefix, subject = SUBJECTS[pk % len(SUBJECTS)]
            capacity[pk] = rng.randint(*capacity_range)
            doc = Course(pk, f"{prefix}-{100 + pk}", f"{subject}: {rng.choice(TOPICS)} {pk}", "", capacity[pk])
            documents[pk] = doc.to_hash()
        store.queue_new_documents(tx, "course", documents)
        written += _commit(ctx, tx, "course", len(batch))

    instructor_ids = _people(ctx, "instructor", n_instructors)
    student_ids = _people(ctx, "student", n_students)
    written += len(instructor_ids) + len(student_ids)

    # Assignments: each course gets 1-3 instructors, within both bounds.
    per_course, per_instructor = conf.max_instructors_per_course(), conf.max_courses_per_instructor()
    teaching = {pk: 0 for pk in instructor_ids}
    pairs = []
    for course_id in course_ids:
        chosen = rng.sample(instructor_ids, k=min(len(instructor_ids), rng.randint(1, 3)))
        for instructor_id in chosen[:per_course]:
            if teaching[instructor_id] < per_instructor:
                teaching[instructor_id] += 1
                pairs.append((course_id, instructor_id))
    for batch in batched(pairs, BATCH):
        tx = store.bulk_batch()
        store.queue_pairs(tx, "teaching", batch)
        written += _commit(ctx, tx, "course", len(batch))

    # Enrolments: each student takes a few courses that still have room.
    limit = conf.max_courses_per_student()
    enrolled = dict.fromkeys(course_ids, 0)
    for batch in batched(student_ids, BATCH):
        pairs = []
        for student_id in batch:
            wanted = min(limit, rng.randint(*per_student))
            for course_id in rng.sample(course_ids, k=min(len(course_ids), wanted)):
                if enrolled[course_id] < capacity[course_id]:
                    enrolled[course_id] += 1
                    pairs.append((course_id, student_id))
        tx = store.bulk_batch()
        store.queue_pairs(tx, "enrolment", pairs)
        written += _commit(ctx, tx, "enrolment", len(pairs))
    return written


def _people(ctx: SeedContext, entity: str, count: int) -> list[int]:
    """``count`` people, part of them at schema 1; returns their ids."""
    ids = list(store.reserve_ids(entity, count))
    for batch in batched(ids, BATCH):
        tx, documents = store.bulk_batch(), {}
        for pk in batch:
            name = f"{ctx.rng.choice(FIRST)} {ctx.rng.choice(LAST)}"
            email = f"{name.lower().replace(' ', '.')}.{pk}@{entity}s.example.org"
            if ctx.rng.random() < SCHEMA_ONE_SHARE:
                documents[pk] = schema_one_hash(name, email)
            else:
                documents[pk] = Person(pk, name, email, [email]).to_hash()
        store.queue_new_documents(tx, entity, documents)
        _commit(ctx, tx, entity, len(batch))
    return ids


def _commit(ctx: SeedContext, tx, entity: str, count: int) -> int:
    """Close a batch: its event, one script (thousands of commands) sent, the progress bar."""
    store.queue_seed_event(tx, entity, count)
    tx.send()
    ctx.progress(count)
    return count
