"""The seeder's bulk paths: documents and relations queued many to a pipeline, no per-item checks.

The seeder keeps the bounds itself (it chooses what it writes), so these
paths skip the scripts' checks, fold a batch's index entries and relation
members into one variadic command per key (one ZADD for a batch's ids, one
SADD per set), and send thousands of commands per round trip;
``check_integrity`` after seeding proves the result.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from config.activity import Actor
from config.redis import client
from config.store import queue_event
from school import keys
from school.store.core import lex_member
from school.store.entities import queue_document, reserve_ids
from school.store.names import INDEXES, TEXT_FIELD

__all__ = [
    "queue_document", "reserve_ids", "queue_link", "queue_enrolment", "queue_seed_event", "transaction",
    "queue_new_documents", "queue_pairs",
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


def queue_pairs(pipe, relation: str, pairs: list[tuple[int, int]]) -> None:
    """Both sides of many (course, other) pairs, one SADD per set: ``relation`` is "teaching"
    (course, instructor) or "enrolment" (course, student)."""
    course_side, other_side = {
        "teaching": (keys.course_instructors, keys.instructor_courses),
        "enrolment": (keys.course_students, keys.student_courses),
    }[relation]
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
