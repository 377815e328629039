"""The bulk paths of the seeder and the import: documents and relations queued many to a pipeline.

The seeder keeps the bounds itself and the import checks each batch of pairs (``Room``), so these
paths skip the scripts' per-item checks, fold a batch's entries into one variadic command per key,
and send a batch as one script of plain commands (``config.store.bulk``); ``check_integrity`` proves
the result.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from config.activity import Actor
from config.redis import client
from config.store import pipelined, queue_event
from config.store.bulk import BulkWrite
from school import conf, keys
from school.store.core import Refused, lex_member
from school.store.names import INDEXES, searched_text


def _batch_of(pipe) -> BulkWrite:
    """The batch to queue on: ``pipe`` itself when it is one, else a new one for ``pipe``."""
    return pipe if isinstance(pipe, BulkWrite) else BulkWrite()


def queue_new_documents(pipe, entity: str, documents: dict[int, dict[str, str]]) -> None:
    """New documents and their indexes, one script call for the batch: an HSET each, then one command per index."""
    if not documents:
        return
    batch = _batch_of(pipe)
    for pk, fields in documents.items():
        batch.hset(keys.doc(entity, pk), mapping=fields)
    batch.zadd(keys.index(entity), {str(pk): pk for pk in documents})
    batch.zadd(keys.lex(entity), {lex_member(entity, pk, fields): 0 for pk, fields in documents.items()})
    pieces = INDEXES[entity].members_by_set(
        (str(pk), searched_text(entity, fields)) for pk, fields in documents.items()
    )
    for gram_key, members in sorted(pieces.items()):
        batch.sadd(gram_key, *members)
    if entity == "course":
        batch.hset(keys.course_codes(), mapping={fields["code"]: str(pk) for pk, fields in documents.items()})
    else:
        for version, count in sorted(Counter(fields["schema"] for fields in documents.values()).items()):
            batch.hincrby(keys.schemas(entity), version, count)
    if batch is not pipe:
        batch.queue(pipe)


def queue_last_id(pipe, entity: str, pk: int) -> None:
    """Put the id counter at ``pk``, the highest id an import wrote so far: the next create draws ``pk + 1``."""
    pipe.set(keys.ids(entity), pk)


class Room:
    """The bounds of one relation while an import writes it, checked batch by batch as the relation
    scripts check them pair by pair. The app was empty and holds no seat holds, so the sizes are
    counted here as batches pass; each course's capacity is read once."""

    def __init__(self, relation: str):
        self.relation = relation
        self.per_course: Counter = Counter()
        self.per_other: Counter = Counter()
        self.capacity: dict[int, int] = {}

    def check(self, pairs: list[tuple[int, int]]) -> None:
        """Refuse the batch (``Refused``) if one pair would break a bound; else count it."""
        by_course = Counter(course for course, _ in pairs)
        by_other = Counter(other for _, other in pairs)
        enrolment = self.relation == "enrolment"
        if enrolment:
            self._read_capacities([c for c in by_course if c not in self.capacity])
        per_course = conf.max_instructors_per_course()
        for course_id, adding in by_course.items():
            taken = self.per_course[course_id] + adding
            if enrolment and taken > self.capacity[course_id]:
                raise Refused(f"course {course_id} has {self.capacity[course_id]} seats: {taken} would be taken")
            if not enrolment and taken > per_course:
                raise Refused(f"course {course_id} would have more than {per_course} instructors")
        other = "student" if enrolment else "instructor"
        per_other = conf.max_courses_per_student() if enrolment else conf.max_courses_per_instructor()
        for other_id, adding in by_other.items():
            if self.per_other[other_id] + adding > per_other:
                raise Refused(f"{other} {other_id} would have more than {per_other} courses")
        self.per_course.update(by_course)
        self.per_other.update(by_other)

    def _read_capacities(self, course_ids: list[int]) -> None:
        found = pipelined(course_ids, lambda pipe, course_id: pipe.hget(keys.doc("course", course_id), "capacity"))
        self.capacity.update((c, int(v or 0)) for c, v in zip(course_ids, found))


def queue_pairs(pipe, relation: str, pairs: list[tuple[int, int]]) -> None:
    """Both sides of many (course, other) pairs, one command per key: SADD to a set, ZADD to a roster (each
    student scored by id); ``relation``: "teaching" or "enrolment"."""
    course_side, _, other_side = keys.SIDES[(relation, "course")]
    by_course, by_other = defaultdict(list), defaultdict(list)
    for course_id, other_id in pairs:
        by_course[course_id].append(other_id)
        by_other[other_id].append(str(course_id))
    batch = _batch_of(pipe)
    for course_id, others in by_course.items():
        if keys.kind(course_side) == "zset":
            batch.zadd(course_side(course_id), {str(other): other for other in others})
        else:
            batch.sadd(course_side(course_id), *map(str, others))
    for other_id, courses in by_other.items():
        batch.sadd(other_side(other_id), *courses)
    if batch is not pipe:
        batch.queue(pipe)


def queue_enrolment(pipe, course_id: int, student_id: int) -> None:
    pipe.zadd(keys.course_students(course_id), {str(student_id): student_id})
    pipe.sadd(keys.student_courses(student_id), course_id)


SEED = Actor("seed")


def queue_seed_event(pipe, entity: str, count: int, actor: Actor = SEED) -> None:
    queue_event(pipe, actor.event("created", keys.APP, entity, 0, f"{count} {entity}s", gone=True), keys.EVENTS)


def transaction():
    return client().pipeline(transaction=True)


def bulk_batch() -> BulkWrite:
    """A seeder's batch: documents, pairs and the event queued on it, then ``send`` (one script)."""
    return BulkWrite()
