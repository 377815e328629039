"""Invariants of the school: symmetric relations, bounds and capacity, no dangling id,
valid schemas, and the derived indexes and counts (``manage.py check_integrity``)."""

from functools import partial

from config.invariants import Violation, gram_drift, invariant
from school import conf, keys, store
from school.documents import schema_problem
from school.store import checks

APP = keys.APP


def _symmetric(relation: str, entities: tuple[str, str]):
    for entity in entities:
        for a, b, key_a, key_b in checks.one_sided(relation, entity):
            yield Violation(f"{entity} {a} lists {b} in {key_a}, but {key_b} lacks {a}", [key_a, key_b])


@invariant(APP, "courses and instructors list each other (two-way embedding is symmetric)")
def teaching_symmetric():
    yield from _symmetric("teaching", ("course", "instructor"))


@invariant(APP, "rosters and students' course sets list each other (enrolments are symmetric)")
def enrolment_symmetric():
    yield from _symmetric("enrolment", ("student", "course"))


@invariant(APP, "every roster scores each student by their id, so a page of it is a range in id order")
def rosters_in_id_order():
    for pk, member, score in checks.misplaced_in_rosters():
        key = keys.course_students(pk)
        yield Violation(f"{key} scores student {member} {score:g}, not their id", [key])


@invariant(APP, "relation bounds hold: 5 instructors a course, 10 courses an instructor, 8 a student")
def bounds_hold():
    limits = (
        ("teaching", "course", conf.max_instructors_per_course(), keys.course_instructors),
        ("teaching", "instructor", conf.max_courses_per_instructor(), keys.instructor_courses),
        ("enrolment", "student", conf.max_courses_per_student(), keys.student_courses),
    )
    for relation, entity, limit, key in limits:
        for pk, size in checks.relation_sizes(relation, entity):
            if size > limit:
                yield Violation(f"{entity} {pk} has {size} in {key(pk)}, limit {limit}", [key(pk)])


@invariant(APP, "no course has more enrolled students plus live holds than its capacity")
def capacity_holds():
    for pk, capacity, enrolled, held in checks.seat_counts():
        if enrolled + held > capacity:
            yield Violation(
                f"course {pk}: {enrolled} enrolled + {held} held > capacity {capacity}",
                [keys.doc("course", pk), keys.course_students(pk), keys.course_holds(pk)],
            )


# (pattern, owner entity) of every relation key: both sides of each relation, and the holds
_RELATION_KEYS = [(own("*"), entity) for (_, entity), (own, _, _) in keys.SIDES.items()]
_RELATION_KEYS += [(keys.course_holds("*"), "course"), (keys.student_holds("*"), "student")]


@invariant(APP, "no id dangles: every related id and every relation's owner is a document")
def no_dangling_ids():
    for pattern, owner in _RELATION_KEYS:
        for key in checks.scan_keys(pattern):
            owner_id = int(key.split(":")[-2])  # …:<owner>:<id>:<relation>
            if not checks.existing(owner, [owner_id]):
                yield Violation(f"{key} belongs to {owner} {owner_id}, which does not exist", [key])
    for (relation, entity), (own, other, _) in keys.SIDES.items():
        for pk, members in checks.relation_members(relation, entity):
            for missing in sorted(set(members) - checks.existing(other, members)):
                yield Violation(f"{own(pk)} names {other} {missing}, which does not exist", [own(pk)])


@invariant(APP, "every instructor and student is a valid schema 1 or 2 document, every course valid")
def schemas_valid():
    for entity in keys.ENTITIES:
        for batch in checks.scan_documents(entity):
            for pk, fields in batch:
                problem = schema_problem(entity, fields)
                if problem:
                    yield Violation(f"{entity} {pk}: {problem}", [keys.doc(entity, pk)])


def _rebuild_all():
    for entity in keys.ENTITIES:
        checks.rebuild_indexes(entity)


@invariant(APP, "id, name and code indexes and per-version counts match the documents", repair=_rebuild_all)
def indexes_match():
    for entity in keys.ENTITIES:
        ids, lex, codes = checks.index_members(entity)
        want_ids, want_lex, want_codes, versions = checks.expected_indexes(entity)
        if ids != want_ids:
            yield Violation(f"{keys.index(entity)} differs from the {entity} documents", [keys.index(entity)])
        if lex != want_lex:
            yield Violation(f"{keys.lex(entity)} differs from the {entity} documents", [keys.lex(entity)])
        if entity == "course" and codes != want_codes:
            yield Violation(f"{keys.course_codes()} differs from the course codes", [keys.course_codes()])
        if entity != "course":
            stored = {v: n for v, n in store.schema_counts(entity).items() if n}
            if stored != versions:
                yield Violation(f"{keys.schemas(entity)} is {stored}, documents say {versions}", [keys.schemas(entity)])


@invariant(APP, "every seat hold key expires and is indexed on both sides with its deadline")
def holds_indexed():
    for key, c, s, pttl, course_score, student_score, now in checks.hold_entries():
        if pttl < 0:
            yield Violation(f"{key} has no TTL", [key])
            continue
        for index_key, score in ((keys.course_holds(c), course_score), (keys.student_holds(s), student_score)):
            if score is None or abs(score - (now + pttl)) > 2000:
                yield Violation(f"{key} expires in {pttl} ms but {index_key} says {score}", [key, index_key])
    for c, s, _, found in checks.live_index_holds():
        if not found:
            yield Violation(
                f"{keys.course_holds(c)} counts a live hold of student {s}, but its key is gone",
                [keys.course_holds(c), keys.hold(c, s)],
            )


@invariant(
    APP,
    "the trigram indexes hold each course under the pieces of its title and each person of their name",
    repair=store.rebuild_grams,
)
def name_trigrams():
    for entity, field in store.TEXT_FIELD.items():
        missing, extra = store.gram_drift(entity)
        yield from gram_drift(entity, field, missing, extra, partial(keys.ngram, entity))
