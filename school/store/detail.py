"""Detail screens: a course with its instructors, roster page and holds; a person with their courses and holds."""

from __future__ import annotations

from dataclasses import dataclass

from config.redis import client
from school import conf, keys
from school.documents import LIST_FIELDS, Course, Person, from_fields, from_hmget
from school.store.core import HOLDS_SHOWN, NotFound, now_ms


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


def fields_of(entity: str) -> list[str]:
    """``SORT … GET`` patterns: the id, then the list fields of ``entity``'s documents."""
    return ["#", *(keys.doc_field(entity, f) for f in LIST_FIELDS[entity])]


def joined(entity: str, rows: list, by_id: bool = True) -> list:
    """Documents from a ``SORT … GET # GET <fields>`` reply, by id unless the sort gave the order;
    gone ones left out."""
    width = 1 + len(LIST_FIELDS[entity])
    found = [(int(rows[i]), rows[i + 1 : i + width]) for i in range(0, len(rows), width)]
    docs = [from_hmget(entity, pk, values) for pk, values in (sorted(found) if by_id else found)]
    return [d for d in docs if d is not None]


def course_detail(pk: int, offset: int, count: int) -> CourseDetail:
    """The course, its instructors, one page of its roster and its live holds: one round trip.

    ``SORT … GET`` joins each id set with the fields it shows: the instructors
    (bounded), one page of the roster (``LIMIT``: never read whole) and the
    holders (bounded by the capacity, and pruned by every seat write).
    """
    now = now_ms()
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.doc("course", pk))
    pipe.sort(keys.course_instructors(pk), by="nosort", get=fields_of("instructor"))
    pipe.scard(keys.course_students(pk))
    pipe.sort(keys.course_students(pk), start=offset, num=count, get=fields_of("student"))
    pipe.zrangebyscore(keys.course_holds(pk), now, "+inf", start=0, num=HOLDS_SHOWN, withscores=True)
    pipe.zcount(keys.course_holds(pk), now, "+inf")
    pipe.sort(keys.course_holds(pk), by="nosort", get=["#", keys.doc_field("student", "name")])
    fields, instructors, enrolled, roster, holds, live, holders = pipe.execute()
    if not fields:
        raise NotFound(f"course {pk} does not exist")
    names = dict(zip(holders[::2], holders[1::2]))
    return CourseDetail(
        from_fields("course", pk, fields),
        joined("instructor", instructors),
        joined("student", roster, by_id=False),
        enrolled,
        [Hold(pk, int(m), int(s), names.get(m) or f"#{m}") for m, s in holds],
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


def person_detail(entity: str, pk: int) -> PersonDetail:
    """A person, their courses (the bounded side, joined with SORT … GET) and live holds: one round trip."""
    related = keys.instructor_courses(pk) if entity == "instructor" else keys.student_courses(pk)
    now = now_ms()
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.doc(entity, pk))
    pipe.sort(related, by="nosort", get=fields_of("course"))
    if entity == "student":
        pipe.zrangebyscore(keys.student_holds(pk), now, "+inf", withscores=True)
        pipe.sort(keys.student_holds(pk), by="nosort", get=fields_of("course"))  # bounded: seat writes prune it
    replies = pipe.execute()
    if not replies[0]:
        raise NotFound(f"{entity} {pk} does not exist")
    holds = replies[2] if entity == "student" else []
    held = {c.id: c.label for c in joined("course", replies[3])} if entity == "student" else {}
    limit = conf.max_courses_per_instructor() if entity == "instructor" else conf.max_courses_per_student()
    return PersonDetail(
        Person.from_hash(pk, replies[0]),
        joined("course", replies[1]),
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
