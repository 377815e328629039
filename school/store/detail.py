"""Detail screens: a course with its instructors, roster page and holds; a person with their courses and holds."""

from __future__ import annotations

from dataclasses import dataclass

from config.redis import client
from school import conf, keys
from school.documents import LIST_FIELDS, Course, Person, from_fields, from_hmget
from school.store.core import HOLDS_SHOWN, NotFound, now_ms, queue_labels, take_docs


@dataclass
class Hold:
    course_id: int
    student_id: int
    expires_ms: int
    label: str = ""

    @property
    def seconds_left(self) -> int:
        return max(0, (self.expires_ms - now_ms() + 999) // 1000)


@dataclass
class CourseDetail:
    course: Course
    instructors: list[Person]
    roster: list[Person]
    enrolled: int
    holds: list[Hold]
    live_holds: int

    @property
    def seats_left(self) -> int:
        return max(0, self.course.capacity - self.enrolled - self.live_holds)

    @property
    def full(self) -> bool:
        return self.seats_left == 0


def course_detail(pk: int, offset: int, count: int) -> CourseDetail:
    """The course, its instructors, one page of its roster and its live holds: two round trips
    (ids first, then the names those ids need)."""
    now = now_ms()
    first = client().pipeline(transaction=False)
    first.hgetall(keys.doc("course", pk))
    first.smembers(keys.course_instructors(pk))
    first.scard(keys.course_students(pk))
    first.sort(keys.course_students(pk), start=offset, num=count)
    first.zrangebyscore(keys.course_holds(pk), now, "+inf", start=0, num=HOLDS_SHOWN, withscores=True)
    first.zcount(keys.course_holds(pk), now, "+inf")
    fields, instructor_ids, enrolled, roster_ids, holds, live = first.execute()
    if not fields:
        raise NotFound(f"course {pk} does not exist")
    instructor_ids = sorted(int(i) for i in instructor_ids)
    roster_ids = [int(i) for i in roster_ids]
    hold_ids = [int(m) for m, _ in holds]
    second = client().pipeline(transaction=False)
    queue_labels(second, "instructor", instructor_ids)
    queue_labels(second, "student", roster_ids + hold_ids)
    replies = iter(second.execute() if instructor_ids or roster_ids or hold_ids else [])
    instructors = take_docs("instructor", instructor_ids, replies)
    roster = take_docs("student", roster_ids, replies)
    names = {pk_: (v[0] or f"#{pk_}") for pk_, v in zip(hold_ids, replies)}
    return CourseDetail(
        from_fields("course", pk, fields),
        instructors,
        roster,
        enrolled,
        [Hold(pk, int(m), int(s), names.get(int(m), "")) for m, s in holds],
        live,
    )


@dataclass
class PersonDetail:
    person: Person
    courses: list[Course]
    holds: list[Hold]
    limit: int

    @property
    def load(self) -> int:
        return len(self.courses) + len(self.holds)


_COURSE_FIELDS = ["#", *(keys.doc_field("course", f) for f in LIST_FIELDS["course"])]


def _courses(rows: list) -> list[Course]:
    """Courses from a ``SORT … GET # GET <fields>`` reply (grouped), by id; gone ones left out."""
    width = len(_COURSE_FIELDS)
    found = [(int(rows[i]), rows[i + 1 : i + width]) for i in range(0, len(rows), width)]
    docs = [from_hmget("course", pk, values) for pk, values in sorted(found)]
    return [d for d in docs if d is not None]


def person_detail(entity: str, pk: int) -> PersonDetail:
    """A person, their courses (the bounded side, joined with SORT … GET) and live holds: one round trip."""
    related = keys.instructor_courses(pk) if entity == "instructor" else keys.student_courses(pk)
    now = now_ms()
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.doc(entity, pk))
    pipe.sort(related, by="nosort", get=_COURSE_FIELDS)
    if entity == "student":
        pipe.zrangebyscore(keys.student_holds(pk), now, "+inf", withscores=True)
        pipe.sort(keys.student_holds(pk), by="nosort", get=_COURSE_FIELDS)  # bounded: seat writes prune it
    replies = pipe.execute()
    if not replies[0]:
        raise NotFound(f"{entity} {pk} does not exist")
    holds = replies[2] if entity == "student" else []
    held = {c.id: c.label for c in _courses(replies[3])} if entity == "student" else {}
    limit = conf.max_courses_per_instructor() if entity == "instructor" else conf.max_courses_per_student()
    return PersonDetail(
        Person.from_hash(pk, replies[0]),
        _courses(replies[1]),
        [Hold(int(m), pk, int(s), held.get(int(m), f"#{m}")) for m, s in holds],
        limit,
    )


@dataclass(frozen=True)
class Pair:
    """A course and a person, for a confirmation page: whether they are related, and their labels."""

    course: Course
    other: Person
    related: bool


def pair(course_id: int, entity: str, other_id: int, kind: str) -> Pair:
    """The course, the other document and whether the pair exists (``kind``: a set member or a
    hold): one round trip."""
    if kind == "hold":
        related_key = keys.course_holds(course_id)
    elif entity == "instructor":
        related_key = keys.course_instructors(course_id)
    else:
        related_key = keys.course_students(course_id)
    pipe = client().pipeline(transaction=False)
    pipe.hmget(keys.doc("course", course_id), LIST_FIELDS["course"])
    pipe.hmget(keys.doc(entity, other_id), LIST_FIELDS[entity])
    pipe.zscore(related_key, other_id) if kind == "hold" else pipe.sismember(related_key, other_id)
    course, other, member = pipe.execute()
    course, other = from_hmget("course", course_id, course), from_hmget(entity, other_id, other)
    if course is None or other is None:
        raise NotFound(f"course {course_id} or {entity} {other_id} does not exist")
    return Pair(course, other, bool(member))


def is_enrolled(course_id: int, student_id: int) -> bool:
    return bool(client().sismember(keys.course_students(course_id), student_id))
