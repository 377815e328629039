"""The seeder's bulk paths: documents and relations queued many to a pipeline, no per-item checks.

The seeder keeps the bounds itself (it chooses what it writes), so these
paths skip the scripts' checks and send thousands of commands per round trip;
``check_integrity`` after seeding proves the result.
"""

from __future__ import annotations

from config.activity import Actor
from config.redis import client
from config.store import queue_event
from school import keys
from school.store.entities import queue_document, reserve_ids

__all__ = ["queue_document", "reserve_ids", "queue_link", "queue_enrolment", "queue_seed_event", "transaction"]


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
