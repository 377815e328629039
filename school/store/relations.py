"""Relation writes, one script each: assign and unassign instructors, enrol, drop, hold, confirm, release.

Courses and instructors are bounded on both sides (two-way embedding); students and courses have an
unbounded side (the roster). Every write checks its bounds and writes both sides and its event
atomically, and answers with the names it read, for the message the user sees.
"""

from __future__ import annotations

from dataclasses import dataclass

from config.activity import Actor
from school import conf, keys
from school.store.core import event_args, run


@dataclass(frozen=True)
class Change:
    """What a relation write did, named for the user: the person's name and the course's code."""

    name: str
    code: str
    expires_ms: int = 0  # a new hold's deadline


def _docs(course_id: int, entity: str, other_id: int) -> list[str]:
    return [keys.doc("course", course_id), keys.doc(entity, other_id)]


# --- courses and instructors: bounded on both sides -------------------------------------


def link_instructor(course_id: int, instructor_id: int, *, actor: Actor) -> Change:
    """SADD both sides, within both bounds: one script."""
    sides = [keys.course_instructors(course_id), keys.instructor_courses(instructor_id)]
    args = {
        "course": str(course_id),
        "instructor": str(instructor_id),
        "per_course": conf.max_instructors_per_course(),
        "per_instructor": conf.max_courses_per_instructor(),
        "event": event_args(actor, "assigned", "course", course_id, "{name} to {code}"),
        "refusals": {
            "member": "{name} already teaches {code}.",
            "course_limit": "{code} already has {count} instructors, the most a course may have.",
            "instructor_limit": "{name} already teaches {count} courses, the most an instructor may teach.",
        },
    }
    return Change(*run("assign", [*_docs(course_id, "instructor", instructor_id), *sides], args))


_UNPAIRS = {  # what: (the other entity, "set" or "hold", the event's verb and label, the refusal, both sides' types)
    "unassign": ("instructor", "set", "unassigned", "{name} from {code}", "{name} does not teach {code}.",
                 (keys.course_instructors, keys.instructor_courses)),
    "drop": ("student", "set", "dropped", "{name} from {code}", "{name} is not enrolled in {code}.",
             (keys.course_students, keys.student_courses)),
    "release": ("student", "hold", "released", "{name}'s seat in {code}", "{name} holds no seat in {code}.",
                (keys.course_holds, keys.student_holds)),
}  # fmt: skip


def _unpair(what: str, course_id: int, other_id: int, sides: list[str], actor: Actor) -> Change:
    """The one script of unassign, drop and release: both sides removed, or refused when not paired."""
    entity, kind, verb, label, refusal, types = _UNPAIRS[what]
    args = {
        "course": str(course_id), "other": str(other_id), "entity": entity, "kind": kind,
        "sides": [keys.kind(side) for side in types],
        "event": event_args(actor, verb, "course", course_id, label), "refusals": {"not_member": refusal},
    }  # fmt: skip
    return Change(*run("unpair", [*_docs(course_id, entity, other_id), *sides], args))


def unlink_instructor(course_id: int, instructor_id: int, *, actor: Actor) -> Change:
    """SREM both sides: one script."""
    sides = [keys.course_instructors(course_id), keys.instructor_courses(instructor_id)]
    return _unpair("unassign", course_id, instructor_id, sides, actor)


# --- students and courses: enrolments and seat holds -------------------------------------

_SEAT_REFUSALS = {
    "no_hold": "{name} holds no seat in {code} (it may have expired).",
    "held": "{name} already holds a seat in {code}.",
    "enrolled": "{name} is already enrolled in {code}.",
    "student_limit": "{name} already takes or holds {load} courses, the most a student may have is {limit}.",
    "full": "{code} is full: {seats}, all enrolled or held.",
}


def _seat(mode: str, course_id: int, student_id: int, actor: Actor, verb: str, label: str, seconds: int = 0):
    """The one script of enrol, hold and confirm: capacity, the student's bound, and the write."""
    sides = [keys.course_students(course_id), keys.student_courses(student_id), keys.course_holds(course_id)]
    sides += [keys.student_holds(student_id), keys.hold(course_id, student_id)]
    args = {
        "mode": mode,
        "course": str(course_id),
        "student": str(student_id),
        "per_student": conf.max_courses_per_student(),
        "hold_ms": (seconds or conf.hold_seconds()) * 1000,
        "event": event_args(actor, verb, "course", course_id, label),
        "refusals": _SEAT_REFUSALS,
    }
    return Change(*run("seat", [*_docs(course_id, "student", student_id), *sides], args))


def enrol(course_id: int, student_id: int, *, actor: Actor) -> Change:
    """Enrol, within capacity (enrolled + live holds) and the student's bound; a live
    hold of this student on this course is used up by it."""
    return _seat("enrol", course_id, student_id, actor, "enrolled", "{name} in {code}")


def confirm_hold(course_id: int, student_id: int, *, actor: Actor) -> Change:
    """Turn a live hold into an enrolment; an expired hold confirms nothing."""
    return _seat("confirm", course_id, student_id, actor, "confirmed", "{name}'s seat in {code}")


def hold_seat(course_id: int, student_id: int, *, actor: Actor, seconds: int | None = None) -> Change:
    """Hold a seat: a key with a TTL plus its score in both holds indexes, all expiring at
    the same instant (``Change.expires_ms``)."""
    return _seat("hold", course_id, student_id, actor, "held", "a seat for {name} in {code}", seconds or 0)


def release_hold(course_id: int, student_id: int, *, actor: Actor) -> Change:
    """Delete the hold key and both index entries; the seat is free at once."""
    sides = [keys.course_holds(course_id), keys.student_holds(student_id), keys.hold(course_id, student_id)]
    return _unpair("release", course_id, student_id, sides, actor)


def drop(course_id: int, student_id: int, *, actor: Actor) -> Change:
    """ZREM from the roster, SREM from the student's courses: one script."""
    sides = [keys.course_students(course_id), keys.student_courses(student_id)]
    return _unpair("drop", course_id, student_id, sides, actor)


@dataclass(frozen=True)
class Enrolled:
    """What enrolling many students did, by name, and how many no longer exist."""

    code: str
    done: list[str]
    already: list[str]
    at_limit: list[str]
    no_seat: list[str]
    missing: int


def enrol_many(course_id: int, student_ids: list[int], *, actor: Actor) -> Enrolled:
    """Enrol each student in the course, in order, while it has seats: one script, so the roster and the
    students' sides are written together. NotFound when the course is gone."""
    script_keys = [keys.doc("course", course_id), keys.course_students(course_id), keys.course_holds(course_id)]
    for student_id in student_ids:
        script_keys += [
            keys.doc("student", student_id), keys.student_courses(student_id), keys.student_holds(student_id),
            keys.hold(course_id, student_id),
        ]  # fmt: skip
    args = {
        "course": str(course_id),
        "students": [str(s) for s in student_ids],
        "per_student": conf.max_courses_per_student(),
        "event": event_args(actor, "enrolled", "course", course_id, "{name} in {code}"),
    }
    code, *rest = run("enrol_many", script_keys, args)
    found: dict[str, list[str]] = {"done": [], "enrolled": [], "limit": [], "full": [], "missing": []}
    for i in range(0, len(rest), 3):
        found[rest[i + 1]].append(rest[i + 2])
    return Enrolled(code, found["done"], found["enrolled"], found["limit"], found["full"], len(found["missing"]))
