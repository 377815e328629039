"""The bulk paths of the seeder and the import: documents and relations queued many to a pipeline.

The seeder keeps the bounds itself (it chooses what it writes), and the import
checks a batch of pairs against them with one read (``check_room``), so these
paths skip the scripts' per-item checks, fold a batch's index entries and
relation members into one variadic command per key (one ZADD for a batch's ids,
one SADD per set), and send thousands of commands per round trip;
``check_integrity`` after seeding or importing proves the result.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from config.activity import Actor
from config.redis import client
from config.store import queue_event
from school import conf, keys
from school.store.core import Refused, lex_member, now_ms
from school.store.entities import queue_document, reserve_ids
from school.store.names import INDEXES, TEXT_FIELD

__all__ = [
    "queue_document", "reserve_ids", "queue_link", "queue_enrolment", "queue_seed_event", "transaction",
    "queue_new_documents", "queue_pairs", "queue_last_id", "check_room",
]  # fmt: skip


def queue_new_documents(pipe, entity: str, documents: dict[int, dict[str, str]]) -> None:
    """New documents and their indexes: one HSET each, then one ZADD per index, one SADD per
    trigram set of the names (a course's title), one HSET of the course codes or one HINCRBY per
    schema version, for the whole batch."""
    if not documents:
        return
    for pk, fields in documents.items():
        pipe.hset(keys.doc(entity, pk), mapping=fields)
    pipe.zadd(keys.index(entity), {str(pk): pk for pk in documents})
    pipe.zadd(keys.lex(entity), {lex_member(entity, pk, fields): 0 for pk, fields in documents.items()})
    pieces: dict[str, list[str]] = {}
    for pk, fields in documents.items():
        for gram_key in INDEXES[entity].keys_for(fields.get(TEXT_FIELD[entity], "")):
            pieces.setdefault(gram_key, []).append(str(pk))
    for gram_key, members in sorted(pieces.items()):
        for start in range(0, len(members), 1000):
            pipe.sadd(gram_key, *members[start : start + 1000])
    if entity == "course":
        pipe.hset(keys.course_codes(), mapping={fields["code"]: pk for pk, fields in documents.items()})
    else:
        for version, count in sorted(Counter(fields["schema"] for fields in documents.values()).items()):
            pipe.hincrby(keys.schemas(entity), version, count)


def queue_last_id(pipe, entity: str, pk: int) -> None:
    """Put the id counter at ``pk``, the highest id written so far into an empty app (the import's
    documents come in ascending id order): the next create draws ``pk + 1``."""
    pipe.set(keys.ids(entity), pk)


_SIDES = {
    "teaching": (keys.course_instructors, keys.instructor_courses),
    "enrolment": (keys.course_students, keys.student_courses),
}


def check_room(relation: str, pairs: list[tuple[int, int]]) -> None:
    """Refuse a batch of new (course, other) pairs that would break a bound, as the relation
    scripts would one by one: a course's instructors or capacity (enrolled plus live holds), a
    person's courses (plus a student's live holds). One pipeline reads the sizes now."""
    course_side, other_side = _SIDES[relation]
    by_course = Counter(course for course, _ in pairs)
    by_other = Counter(other for _, other in pairs)
    now = now_ms()
    pipe = client().pipeline(transaction=False)
    for course_id in by_course:
        pipe.scard(course_side(course_id))
        if relation == "enrolment":
            pipe.hget(keys.doc("course", course_id), "capacity")
            pipe.zcount(keys.course_holds(course_id), now, "+inf")
    for other_id in by_other:
        pipe.scard(other_side(other_id))
        if relation == "enrolment":
            pipe.zcount(keys.student_holds(other_id), now, "+inf")
    replies = iter(pipe.execute())
    other = "student" if relation == "enrolment" else "instructor"
    per_other = conf.max_courses_per_student() if relation == "enrolment" else conf.max_courses_per_instructor()
    for course_id, adding in by_course.items():
        taken = next(replies)
        if relation == "enrolment":
            capacity, held = int(next(replies) or 0), next(replies)
            if taken + held + adding > capacity:
                raise Refused(f"course {course_id} has {capacity} seats: {taken + held + adding} would be taken")
        elif taken + adding > conf.max_instructors_per_course():
            raise Refused(f"course {course_id} would have more than {conf.max_instructors_per_course()} instructors")
    for other_id, adding in by_other.items():
        taken = next(replies) + (next(replies) if relation == "enrolment" else 0)
        if taken + adding > per_other:
            raise Refused(f"{other} {other_id} would have more than {per_other} courses")


def queue_pairs(pipe, relation: str, pairs: list[tuple[int, int]]) -> None:
    """Both sides of many (course, other) pairs, one SADD per set: ``relation`` is "teaching"
    (course, instructor) or "enrolment" (course, student)."""
    course_side, other_side = _SIDES[relation]
    by_course, by_other = defaultdict(list), defaultdict(list)
    for course_id, other_id in pairs:
        by_course[course_id].append(other_id)
        by_other[other_id].append(course_id)
    for course_id, others in by_course.items():
        pipe.sadd(course_side(course_id), *others)
    for other_id, courses in by_other.items():
        pipe.sadd(other_side(other_id), *courses)


def queue_link(pipe, course_id: int, instructor_id: int) -> None:
    pipe.sadd(keys.course_instructors(course_id), instructor_id)
    pipe.sadd(keys.instructor_courses(instructor_id), course_id)


def queue_enrolment(pipe, course_id: int, student_id: int) -> None:
    pipe.sadd(keys.course_students(course_id), student_id)
    pipe.sadd(keys.student_courses(student_id), course_id)


SEED = Actor("seed")


def queue_seed_event(pipe, entity: str, count: int, actor: Actor = SEED) -> None:
    queue_event(pipe, actor.event("created", keys.APP, entity, 0, f"{count} {entity}s", gone=True))


def transaction():
    return client().pipeline(transaction=True)
