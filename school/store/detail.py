"""Detail screens: a course with its instructors, roster page and holds; a person with their courses and holds."""

from __future__ import annotations

from dataclasses import dataclass

from config.redis import client
from config.store.sorting import sort_options
from school import conf, keys
from school.documents import LIST_FIELDS, ROW_FIELDS, Course, Person, from_hmget
from school.store.core import HOLDS_SHOWN, NotFound, now_ms, queue_has, read


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
    roster: list[Person]  # each read with ROW_FIELDS: the name and contact a row shows
    enrolled: int
    holds: list[Hold]
    live_holds: int

    @property
    def seats_left(self) -> int:
        return max(0, self.course.capacity - self.enrolled - self.live_holds)

    @property
    def full(self) -> bool:
        return self.seats_left == 0


def fields_of(entity: str, names=None) -> list[str]:
    """``SORT … GET`` patterns: the id, then ``names`` (the list fields unless given) of ``entity``'s documents."""
    return ["#", *(keys.doc_field(entity, f) for f in names or LIST_FIELDS[entity])]


def _groups(*groups: list[str]) -> list:
    """Groups of ``SORT … GET`` patterns as a script's ARGV: each group's length, then its GET options."""
    return [part for group in groups for part in (2 * len(group), *sort_options(get=group))]


_COURSE_GETS = sort_options(get=fields_of("course"))  # joining a person's course ids with their list fields
_DETAIL_GETS = _groups(
    fields_of("instructor"), fields_of("student", ROW_FIELDS), ["#", keys.doc_field("student", "name")]
)


def joined(entity: str, rows: list, names=None) -> list:
    """Documents from a ``SORT … GET # GET <fields>`` reply of ``names`` (the list fields unless given), in
    its order (SORT's, by id); gone ones left out."""
    names = names or LIST_FIELDS[entity]
    width = 1 + len(names)
    docs = [from_hmget(entity, int(rows[i]), rows[i + 1 : i + width], names) for i in range(0, len(rows), width)]
    return [d for d in docs if d is not None]


def course_detail(pk: int, offset: int, count: int) -> CourseDetail:
    """The course, its instructors, one page of its roster (never read whole) and its live holds: one
    command (``lua/read_course.lua``), joining each id set with the fields it shows."""
    script_keys = [keys.doc("course", pk), keys.course_instructors(pk), keys.course_students(pk), keys.course_holds(pk)]
    found = read("read_course", script_keys, [now_ms(), offset, count, HOLDS_SHOWN, *_DETAIL_GETS])
    if not found:
        raise NotFound(f"course {pk} does not exist")
    flat, instructors, enrolled, roster, holds, live, holders = found
    names = dict(zip(holders[::2], holders[1::2]))
    held = [Hold(pk, int(m), int(float(s)), names.get(m) or f"#{m}") for m, s in zip(holds[::2], holds[1::2])]
    course = Course.from_hash(pk, dict(zip(flat[::2], flat[1::2])))
    roster = joined("student", roster, ROW_FIELDS)  # a row's name and contact, not the student's other emails
    return CourseDetail(course, joined("instructor", instructors), roster, enrolled, held, live)


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
    """A person, their courses (the bounded side) and live holds: one command (``lua/read_person.lua``)."""
    if entity == "instructor":
        script_keys = [keys.doc(entity, pk), keys.instructor_courses(pk)]
    else:
        script_keys = [keys.doc(entity, pk), keys.student_courses(pk), keys.student_holds(pk)]
    found = read("read_person", script_keys, [now_ms(), *_COURSE_GETS])
    if not found:
        raise NotFound(f"{entity} {pk} does not exist")
    flat = found[0]
    person = Person.from_hash(pk, dict(zip(flat[::2], flat[1::2])))
    if entity == "instructor":
        return PersonDetail(person, joined("course", found[1]), [], conf.max_courses_per_instructor())
    names, holds = {c.id: c.label for c in joined("course", found[3])}, found[2]
    held = [Hold(int(m), pk, int(float(s)), names.get(int(m), f"#{m}")) for m, s in zip(holds[::2], holds[1::2])]
    return PersonDetail(person, joined("course", found[1]), held, conf.max_courses_per_student())


@dataclass(frozen=True)
class Pair:
    """A course and a person, for a confirmation page: whether they are related, and their labels."""

    course: Course
    other: Person
    related: bool


def pair(course_id: int, entity: str, other_id: int, kind: str) -> Pair:
    """The course, the other document and whether the pair exists (``kind``: "set" or "hold"): one round trip."""
    relation = "teaching" if entity == "instructor" else "enrolment"
    side = keys.course_holds if kind == "hold" else keys.SIDES[(relation, "course")][0]
    pipe = client().pipeline(transaction=False)
    pipe.hmget(keys.doc("course", course_id), LIST_FIELDS["course"])
    pipe.hmget(keys.doc(entity, other_id), LIST_FIELDS[entity])
    queue_has(pipe, side, course_id, other_id)
    course, other, member = pipe.execute()
    course, other = from_hmget("course", course_id, course), from_hmget(entity, other_id, other)
    if course is None or other is None:
        raise NotFound(f"course {course_id} or {entity} {other_id} does not exist")
    return Pair(course, other, bool(member))


def is_enrolled(course_id: int, student_id: int) -> bool:
    return client().zscore(keys.course_students(course_id), student_id) is not None
