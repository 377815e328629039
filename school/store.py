"""The only code of the school app that talks to Redis.

Reads: every screen's reads go out in one pipeline, two at most (ids first,
then the fields of the documents those ids name). Writes: every multi-key
write is one MULTI/EXEC with its event; every read-modify-write (bounds,
capacity, unique codes, edits) goes through ``_atomic``: WATCH the keys the
decision rests on, read them, decide, then MULTI/EXEC, retrying a bounded
number of times when another client changed a watched key in between.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from config.activity import Event
from config.listing import ListState
from config.redis import client
from config.store import Conflict as Contended
from config.store import batched, pipelined, queue_event, transact
from school import conf, keys
from school.documents import (
    LIST_FIELDS,
    Course,
    Person,
    fingerprint,
    from_fields,
    from_hmget,
    sort_label,
    translate,
)

PICKER_LIMIT = 10
HOLDS_SHOWN = 50


class SchoolError(Exception):
    """A write refused: ``message`` is for the user, ``field`` the form field it belongs beside."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class NotFound(SchoolError):
    pass


class Busy(SchoolError):
    pass


class Conflict(SchoolError):
    """The document changed since the form showing it was loaded."""


def now_ms() -> int:
    return int(time.time() * 1000)


def _atomic(watch: list[str], read: Callable, write: Callable):
    """WATCH ``watch``; ``read(pipe)`` queues reads on a plain pipeline (one round
    trip, after the WATCH, so any change to a watched key since aborts the EXEC);
    ``write(tx, replies)`` checks them, raising SchoolError to refuse, and queues
    the writes on the transaction. Returns what ``write`` returns."""

    def work(tx):
        reads = client().pipeline(transaction=False)
        read(reads)
        replies = reads.execute()
        tx.multi()
        return write(tx, replies)

    try:
        return transact(work, watch=watch, retries=conf.watch_retries())
    except Contended:
        raise Busy("Too many concurrent changes; please try again.") from None


def _event(actor: str, verb: str, entity: str, pk: int, label: str, link: str = "") -> Event:
    return Event(actor, verb, keys.APP, entity, str(pk), label, link)


def _lex_member(entity: str, pk: int, fields: dict[str, str]) -> str:
    return f"{sort_label(entity, fields)}\x00{pk}"


def _lex_id(member: str) -> int:
    return int(member.rsplit("\x00", 1)[1])


# --- documents ------------------------------------------------------------------


def queue_document(pipe, entity: str, pk: int, fields: dict[str, str], old: dict[str, str] | None = None) -> None:
    """Queue writing a document and every index derived from it (create when ``old`` is None)."""
    key = keys.doc(entity, pk)
    if old:
        stale = sorted(set(old) - set(fields))  # schema 1's "email", once upgraded
        if stale:
            pipe.hdel(key, *stale)
        pipe.zrem(keys.lex(entity), _lex_member(entity, pk, old))
        if entity != "course" and old.get("schema") != fields.get("schema"):
            pipe.hincrby(keys.schemas(entity), old.get("schema", "?"), -1)
            pipe.hincrby(keys.schemas(entity), fields["schema"], 1)
        if entity == "course" and old.get("code") != fields["code"]:
            pipe.hdel(keys.course_codes(), old.get("code", ""))
    elif entity != "course":
        pipe.hincrby(keys.schemas(entity), fields["schema"], 1)
    pipe.hset(key, mapping=fields)
    pipe.zadd(keys.index(entity), {str(pk): pk})
    pipe.zadd(keys.lex(entity), {_lex_member(entity, pk, fields): 0})
    if entity == "course":
        pipe.hset(keys.course_codes(), fields["code"], pk)


def reserve_ids(entity: str, count: int) -> range:
    """A block of fresh ids from INCRBY: the seeder's way to take many at once."""
    last = client().incrby(keys.ids(entity), count)
    return range(last - count + 1, last + 1)


def _code_taken(replies_code: str | None, pk: int | None) -> bool:
    return replies_code is not None and (pk is None or int(replies_code) != pk)


def save(entity: str, document: Course | Person, actor: str, link: Callable[[int], str], expected: str = "") -> int:
    """Create (``document.id == 0``) or update a document; returns its id.

    Unique course codes, a capacity no lower than the seats taken, and (with
    ``expected``, the fingerprint the edit form was opened with) that nobody
    changed the document meanwhile, are checked under WATCH. An update of a
    person writes schema 2 whatever it was stored at (``Person.to_hash``).
    """
    creating = document.id == 0
    pk = client().incr(keys.ids(entity)) if creating else document.id
    fields = document.to_hash()
    key = keys.doc(entity, pk)
    watch = [key]
    if entity == "course":
        watch += [keys.course_codes(), keys.course_students(pk), keys.course_holds(pk)]
    now = now_ms()

    def read(p):
        p.hgetall(key)
        if entity == "course":
            p.hget(keys.course_codes(), fields["code"])
            p.scard(keys.course_students(pk))
            p.zcount(keys.course_holds(pk), now, "+inf")

    def write(tx, replies):
        old = replies[0]
        if not creating and not old:
            raise NotFound(f"{entity} {pk} does not exist")
        if expected and fingerprint(old) != expected:
            raise Conflict(f"Someone else changed this {entity} since you opened it. Review it and save again.")
        if entity == "course":
            if _code_taken(replies[1], pk):
                raise SchoolError(f"Course code {fields['code']} is taken by another course.", "code")
            taken = replies[2] + replies[3]
            if document.capacity < taken:
                raise SchoolError(f"{taken} seats are taken (enrolled and held); capacity cannot be lower.", "capacity")
        queue_document(tx, entity, pk, fields, old or None)
        verb = "created" if creating else "updated"
        queue_event(tx, _event(actor, verb, entity, pk, document.label, link(pk)))
        return pk

    return _atomic(watch, read, write)


def get(entity: str, pk: int) -> Course | Person:
    return get_for_edit(entity, pk)[0]


def get_for_edit(entity: str, pk: int) -> tuple[Course | Person, str]:
    """The document and the fingerprint of its stored fields."""
    fields = client().hgetall(keys.doc(entity, pk))
    if not fields:
        raise NotFound(f"{entity} {pk} does not exist")
    return from_fields(entity, pk, fields), fingerprint(fields)


# --- lists ----------------------------------------------------------------------


@dataclass
class Row:
    doc: Course | Person
    counts: dict[str, int] = field(default_factory=dict)


def _queue_id_page(p, entity: str, state: ListState) -> None:
    """Queue the total and one page of ids (or lex members) for a list state."""
    start, stop = state.offset, state.offset + state.per_page - 1
    if state.q:
        prefix = state.q.casefold().replace("\x00", "").encode()
        low, high = b"[" + prefix, b"(" + prefix + b"\xff"
        p.zlexcount(keys.lex(entity), low, high)
        if state.descending:
            p.zrevrangebylex(keys.lex(entity), high, low, state.offset, state.per_page)
        else:
            p.zrangebylex(keys.lex(entity), low, high, state.offset, state.per_page)
    elif state.sort_key == "id":
        p.zcard(keys.index(entity))
        p.zrange(keys.index(entity), start, stop, desc=state.descending)
    else:
        p.zcard(keys.lex(entity))
        p.zrange(keys.lex(entity), start, stop, desc=state.descending)


def _ids_of(entity: str, state: ListState, members: list[str]) -> list[int]:
    by_lex = state.q or state.sort_key != "id"
    return [_lex_id(m) if by_lex else int(m) for m in members]


_ROW_COUNTS = {
    "course": (("students", keys.course_students), ("instructors", keys.course_instructors)),
    "instructor": (("courses", keys.instructor_courses),),
    "student": (("courses", keys.student_courses),),
}


def list_page(entity: str, state: ListState) -> tuple[list[Row], int, dict[str, int]]:
    """One page of a list, its total, and (for people) the count per schema version: two round trips."""
    first = client().pipeline(transaction=False)
    _queue_id_page(first, entity, state)
    if entity != "course":
        first.hgetall(keys.schemas(entity))
    replies = first.execute()
    total, members = replies[0], replies[1]
    versions = {v: int(n) for v, n in sorted(replies[2].items())} if entity != "course" else {}
    ids = _ids_of(entity, state, members)
    return _rows(entity, ids), total, versions


def _rows(entity: str, ids: list[int]) -> list[Row]:
    if not ids:
        return []
    counters = _ROW_COUNTS[entity]
    second = client().pipeline(transaction=False)
    for pk in ids:
        second.hmget(keys.doc(entity, pk), LIST_FIELDS[entity])
        for _, key in counters:
            second.scard(key(pk))
    replies = iter(second.execute())
    rows = []
    for pk in ids:
        doc = from_hmget(entity, pk, next(replies))
        counts = {name: next(replies) for name, _ in counters}
        if doc is not None:
            rows.append(Row(doc, counts))
    return rows


@dataclass
class Candidate:
    doc: Course | Person
    member: bool  # already related (SISMEMBER)
    held_until: int = 0  # ms, for a student holding a seat in the course


def find(entity: str, q: str, related_set: str, holds: str = "") -> list[Candidate]:
    """Up to PICKER_LIMIT documents whose label starts with ``q``, each with one SISMEMBER
    on ``related_set`` (and its hold score in ``holds``): two round trips."""
    state = ListState(q=q, per_page=PICKER_LIMIT)
    first = client().pipeline(transaction=False)
    _queue_id_page(first, entity, state)
    _, members = first.execute()
    ids = _ids_of(entity, state, members)
    if not ids:
        return []
    second = client().pipeline(transaction=False)
    for pk in ids:
        second.hmget(keys.doc(entity, pk), LIST_FIELDS[entity])
        second.sismember(related_set, pk)
        if holds:
            second.zscore(holds, pk)
    replies = iter(second.execute())
    found = []
    for pk in ids:
        doc, member = from_hmget(entity, pk, next(replies)), next(replies)
        score = next(replies) if holds else None
        if doc is not None:
            found.append(Candidate(doc, bool(member), int(score) if score and score > now_ms() else 0))
    return found


def schema_counts(entity: str) -> dict[str, int]:
    return {v: int(n) for v, n in client().hgetall(keys.schemas(entity)).items()}


# --- detail screens ---------------------------------------------------------------


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


def _labels(entity: str, ids: Iterable[int], p) -> None:
    for pk in ids:
        p.hmget(keys.doc(entity, pk), LIST_FIELDS[entity])


def _docs(entity: str, ids: list[int], replies: Iterator) -> list:
    docs = [from_hmget(entity, pk, next(replies)) for pk in ids]
    return [d for d in docs if d is not None]


def course_detail(pk: int, offset: int, count: int) -> CourseDetail:
    """The course, its instructors, one page of its roster and its live holds: two round trips."""
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
    _labels("instructor", instructor_ids, second)
    _labels("student", roster_ids + hold_ids, second)
    replies = iter(second.execute() if instructor_ids or roster_ids or hold_ids else [])
    instructors = _docs("instructor", instructor_ids, replies)
    roster = _docs("student", roster_ids, replies)
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


def person_detail(entity: str, pk: int) -> PersonDetail:
    """A person and their courses (the bounded side, read whole) and live holds: two round trips."""
    related = keys.instructor_courses(pk) if entity == "instructor" else keys.student_courses(pk)
    now = now_ms()
    first = client().pipeline(transaction=False)
    first.hgetall(keys.doc(entity, pk))
    first.smembers(related)
    if entity == "student":
        first.zrangebyscore(keys.student_holds(pk), now, "+inf", withscores=True)
    replies = first.execute()
    if not replies[0]:
        raise NotFound(f"{entity} {pk} does not exist")
    course_ids = sorted(int(i) for i in replies[1])
    holds = replies[2] if entity == "student" else []
    hold_ids = [int(m) for m, _ in holds]
    second = client().pipeline(transaction=False)
    _labels("course", course_ids + hold_ids, second)
    docs = iter(second.execute() if course_ids or hold_ids else [])
    courses = _docs("course", course_ids, docs)
    held = {c.id: c.label for c in _docs("course", hold_ids, docs)}
    limit = conf.max_courses_per_instructor() if entity == "instructor" else conf.max_courses_per_student()
    return PersonDetail(
        Person.from_hash(pk, replies[0]),
        courses,
        [Hold(int(m), pk, int(s), held.get(int(m), f"#{m}")) for m, s in holds],
        limit,
    )


# --- courses and instructors: bounded on both sides -------------------------------


def link_instructor(course_id: int, instructor_id: int, actor: str, link: str) -> None:
    """SADD both sides in one transaction, under WATCH of both sets and both documents."""
    course_set, instructor_set = keys.course_instructors(course_id), keys.instructor_courses(instructor_id)
    course_key, instructor_key = keys.doc("course", course_id), keys.doc("instructor", instructor_id)

    def read(p):
        p.hmget(course_key, ["code", "title"])
        p.hget(instructor_key, "name")
        p.scard(course_set)
        p.scard(instructor_set)
        p.sismember(course_set, instructor_id)

    def write(tx, replies):
        (code, title), name, per_course, per_instructor, member = replies
        if code is None:
            raise NotFound(f"course {course_id} does not exist")
        if name is None:
            raise NotFound(f"instructor {instructor_id} does not exist", "instructor")
        if member:
            raise SchoolError(f"{name} already teaches {code}.", "instructor")
        if per_course >= conf.max_instructors_per_course():
            raise SchoolError(f"{code} already has {per_course} instructors, the most a course may have.", "instructor")
        if per_instructor >= conf.max_courses_per_instructor():
            raise SchoolError(
                f"{name} already teaches {per_instructor} courses, the most an instructor may teach.", "instructor"
            )
        tx.sadd(course_set, instructor_id)
        tx.sadd(instructor_set, course_id)
        queue_event(tx, _event(actor, "assigned", "course", course_id, f"{name} to {code}", link))

    _atomic([course_set, instructor_set, course_key, instructor_key], read, write)


def _unpair(course_id: int, entity: str, other_id: int, member_key: str, removals: list[tuple], what: str, event):
    """The shared remove of unassign, drop and release: both documents must exist and the
    pair must be related (checked under WATCH), then every removal and the event go out
    in one MULTI/EXEC. ``removals`` are (command, key, *args); ``event(code, name)`` builds the event."""
    course_key, other_key = keys.doc("course", course_id), keys.doc(entity, other_id)

    def read(p):
        p.hget(course_key, "code")
        p.hget(other_key, "name")
        if member_key.endswith(":holds"):
            p.zscore(member_key, other_id)
        else:
            p.sismember(member_key, other_id)

    def write(tx, replies):
        code, name, member = replies
        if code is None:
            raise NotFound(f"course {course_id} does not exist")
        if name is None:
            raise NotFound(f"{entity} {other_id} does not exist", entity)
        if not member:
            raise SchoolError(what.format(name=name, code=code), entity)
        for command, *args in removals:
            getattr(tx, command)(*args)
        queue_event(tx, event(code, name))

    _atomic([course_key, other_key, member_key], read, write)


def unlink_instructor(course_id: int, instructor_id: int, actor: str, link: str) -> None:
    _unpair(
        course_id,
        "instructor",
        instructor_id,
        keys.course_instructors(course_id),
        [
            ("srem", keys.course_instructors(course_id), instructor_id),
            ("srem", keys.instructor_courses(instructor_id), course_id),
        ],
        "{name} does not teach {code}.",
        lambda code, name: _event(actor, "unassigned", "course", course_id, f"{name} from {code}", link),
    )


# --- students and courses: enrolments and seat holds --------------------------------


def _seat_keys(course_id: int, student_id: int) -> dict[str, str]:
    return {
        "course": keys.doc("course", course_id),
        "student": keys.doc("student", student_id),
        "roster": keys.course_students(course_id),
        "courses": keys.student_courses(student_id),
        "course_holds": keys.course_holds(course_id),
        "student_holds": keys.student_holds(student_id),
        "hold": keys.hold(course_id, student_id),
    }


@dataclass
class _Seat:
    code: str
    capacity: int
    name: str
    enrolled: int
    course_holds: int
    student_courses: int
    student_holds: int
    member: bool
    own_hold: bool


def _seat_change(course_id: int, student_id: int, decide: Callable[[_Seat], None], apply: Callable) -> None:
    """The shared read-check-write of enrol, hold and confirm, under WATCH of every key involved."""
    k = _seat_keys(course_id, student_id)
    now = now_ms()

    def read(p):
        p.hmget(k["course"], ["code", "capacity"])
        p.hget(k["student"], "name")
        p.scard(k["roster"])
        p.zcount(k["course_holds"], now, "+inf")
        p.scard(k["courses"])
        p.zcount(k["student_holds"], now, "+inf")
        p.sismember(k["roster"], student_id)
        p.zscore(k["course_holds"], student_id)

    def write(tx, replies):
        (code, capacity), name, enrolled, course_holds, courses, student_holds, member, own = replies
        if code is None:
            raise NotFound(f"course {course_id} does not exist")
        if name is None:
            raise NotFound(f"student {student_id} does not exist", "student")
        own_hold = own is not None and own > now
        seat = _Seat(code, int(capacity), name, enrolled, course_holds, courses, student_holds, bool(member), own_hold)
        decide(seat)
        # Dead holds are pruned by every seat write, so the indexes stay within capacity.
        tx.zremrangebyscore(k["course_holds"], "-inf", now)
        tx.zremrangebyscore(k["student_holds"], "-inf", now)
        apply(tx, k, now, seat)

    _atomic(list(k.values()), read, write)


def _check_room(seat: _Seat, releasing_own_hold: bool) -> None:
    own = 1 if releasing_own_hold and seat.own_hold else 0
    if seat.member:
        raise SchoolError(f"{seat.name} is already enrolled in {seat.code}.", "student")
    limit = conf.max_courses_per_student()
    if seat.student_courses + seat.student_holds - own >= limit:
        raise SchoolError(
            f"{seat.name} already takes or holds {seat.student_courses + seat.student_holds} courses, "
            f"the most a student may have is {limit}.",
            "student",
        )
    if seat.enrolled + seat.course_holds - own >= seat.capacity:
        seats = f"{seat.capacity} seat{'' if seat.capacity == 1 else 's'}"
        raise SchoolError(f"{seat.code} is full: {seats}, all enrolled or held.", "student")


def _queue_enrol(tx, k: dict[str, str], course_id: int, student_id: int) -> None:
    tx.sadd(k["roster"], student_id)
    tx.sadd(k["courses"], course_id)
    tx.zrem(k["course_holds"], student_id)
    tx.zrem(k["student_holds"], course_id)
    tx.delete(k["hold"])


def enrol(course_id: int, student_id: int, actor: str, link: str) -> None:
    """Enrol, within capacity (enrolled + live holds) and the student's bound; a live
    hold of this student on this course is used up by it."""

    def apply(tx, k, now, seat):
        _queue_enrol(tx, k, course_id, student_id)
        queue_event(tx, _event(actor, "enrolled", "course", course_id, f"{seat.name} in {seat.code}", link))

    _seat_change(course_id, student_id, lambda seat: _check_room(seat, releasing_own_hold=True), apply)


def confirm_hold(course_id: int, student_id: int, actor: str, link: str) -> None:
    """Turn a live hold into an enrolment; an expired hold confirms nothing."""

    def decide(seat):
        if not seat.own_hold:
            raise SchoolError(f"{seat.name} holds no seat in {seat.code} (it may have expired).", "student")
        _check_room(seat, releasing_own_hold=True)

    def apply(tx, k, now, seat):
        _queue_enrol(tx, k, course_id, student_id)
        queue_event(tx, _event(actor, "confirmed", "course", course_id, f"{seat.name}'s seat in {seat.code}", link))

    _seat_change(course_id, student_id, decide, apply)


def hold_seat(course_id: int, student_id: int, actor: str, link: str, seconds: int | None = None) -> int:
    """Hold a seat: a key with a TTL plus its score in both holds indexes, all expiring at
    the same instant. Returns the expiry in ms."""
    seconds = seconds or conf.hold_seconds()
    expires = {}

    def decide(seat):
        if seat.own_hold:
            raise SchoolError(f"{seat.name} already holds a seat in {seat.code}.", "student")
        _check_room(seat, releasing_own_hold=False)

    def apply(tx, k, now, seat):
        expires["at"] = at = now + seconds * 1000
        tx.set(k["hold"], actor, pxat=at)
        tx.zadd(k["course_holds"], {str(student_id): at})
        tx.zadd(k["student_holds"], {str(course_id): at})
        queue_event(tx, _event(actor, "held", "course", course_id, f"a seat for {seat.name} in {seat.code}", link))

    _seat_change(course_id, student_id, decide, apply)
    return expires["at"]


def release_hold(course_id: int, student_id: int, actor: str, link: str) -> None:
    """Delete the hold key and both index entries; the seat is free at once."""
    _unpair(
        course_id,
        "student",
        student_id,
        keys.course_holds(course_id),
        [
            ("delete", keys.hold(course_id, student_id)),
            ("zrem", keys.course_holds(course_id), student_id),
            ("zrem", keys.student_holds(student_id), course_id),
        ],
        "{name} holds no seat in {code}.",
        lambda code, name: _event(actor, "released", "course", course_id, f"{name}'s seat in {code}", link),
    )


def drop(course_id: int, student_id: int, actor: str, link: str) -> None:
    """SREM both sides in one transaction."""
    _unpair(
        course_id,
        "student",
        student_id,
        keys.course_students(course_id),
        [
            ("srem", keys.course_students(course_id), student_id),
            ("srem", keys.student_courses(student_id), course_id),
        ],
        "{name} is not enrolled in {code}.",
        lambda code, name: _event(actor, "dropped", "course", course_id, f"{name} from {code}", link),
    )


def is_enrolled(course_id: int, student_id: int) -> bool:
    return bool(client().sismember(keys.course_students(course_id), student_id))


# --- deletes: the document and every reference to it, in one transaction ---------


def _scan_set(key: str) -> list[str]:
    """Every member of a set that may be large, by SSCAN: only deletes and checks do this."""
    return list(client().sscan_iter(key, count=1000))


def delete(entity: str, pk: int, actor: str) -> str:
    """Delete a document and every reference to it; returns its label."""
    doc_key = keys.doc(entity, pk)
    if entity == "course":
        owned = [keys.course_instructors(pk), keys.course_students(pk), keys.course_holds(pk)]
    elif entity == "instructor":
        owned = [keys.instructor_courses(pk)]
    else:
        owned = [keys.student_courses(pk), keys.student_holds(pk)]
    roster: list[str] = []

    def read(p):
        # The roster is the unbounded side: it is read by SSCAN, after the WATCH, and
        # any enrolment in the meantime aborts the EXEC and this runs again.
        roster[:] = _scan_set(keys.course_students(pk)) if entity == "course" else []
        p.hgetall(doc_key)
        if entity == "course":
            p.smembers(owned[0])
            p.zrange(owned[2], 0, -1)  # bounded by capacity: every seat write prunes it
        elif entity == "instructor":
            p.smembers(owned[0])
        else:
            p.smembers(owned[0])
            p.zrange(owned[1], 0, -1)  # bounded by the student's course limit

    def write(tx, replies):
        fields = replies[0]
        if not fields:
            raise NotFound(f"{entity} {pk} does not exist")
        tx.delete(doc_key, *owned)
        tx.zrem(keys.index(entity), pk)
        tx.zrem(keys.lex(entity), _lex_member(entity, pk, fields))
        if entity == "course":
            tx.hdel(keys.course_codes(), fields.get("code", ""))
            for instructor_id in replies[1]:
                tx.srem(keys.instructor_courses(int(instructor_id)), pk)
            for student_id in roster:
                tx.srem(keys.student_courses(int(student_id)), pk)
            for student_id in replies[2]:
                tx.zrem(keys.student_holds(int(student_id)), pk)
                tx.delete(keys.hold(pk, int(student_id)))
        else:
            tx.hincrby(keys.schemas(entity), fields.get("schema", "1"), -1)
            for course_id in replies[1]:
                related = keys.course_instructors if entity == "instructor" else keys.course_students
                tx.srem(related(int(course_id)), pk)
            for course_id in replies[2] if entity == "student" else []:
                tx.zrem(keys.course_holds(int(course_id)), pk)
                tx.delete(keys.hold(int(course_id), pk))
        label = from_fields(entity, pk, fields).label
        queue_event(tx, _event(actor, "deleted", entity, pk, label))
        return label

    return _atomic([doc_key, *owned], read, write)


# --- set algebra -----------------------------------------------------------------------


@dataclass
class AlgebraResult:
    courses: list[Course]
    sizes: dict[int, int]
    students: list[Person]
    total: int
    key: str


def algebra(op: str, course_ids: list[int], offset: int, count: int) -> AlgebraResult:
    """SINTERSTORE / SUNIONSTORE / SDIFFSTORE into a key that expires within the
    algebra TTL, then one page of it by SORT … LIMIT, all inside Redis: two round trips."""
    dest = keys.algebra(op, course_ids)
    rosters = [keys.course_students(c) for c in course_ids]
    store_op = {"inter": "sinterstore", "union": "sunionstore", "diff": "sdiffstore"}[op]
    tx = client().pipeline(transaction=True)
    getattr(tx, store_op)(dest, rosters)
    tx.expire(dest, conf.algebra_ttl())
    tx.sort(dest, start=offset, num=count)
    for course_id, roster in zip(course_ids, rosters):
        tx.hmget(keys.doc("course", course_id), LIST_FIELDS["course"])
        tx.scard(roster)
    replies = tx.execute()
    total, _, page_ids = replies[0], replies[1], [int(i) for i in replies[2]]
    rest = iter(replies[3:])
    courses, sizes = [], {}
    for course_id in course_ids:
        doc, size = from_hmget("course", course_id, next(rest)), next(rest)
        if doc is not None:
            courses.append(doc)
            sizes[course_id] = size
    students = []
    if page_ids:
        second = client().pipeline(transaction=False)
        _labels("student", page_ids, second)
        students = _docs("student", page_ids, iter(second.execute()))
    return AlgebraResult(courses, sizes, students, total, dest)


def course_ids_for_codes(codes: list[str]) -> dict[str, int | None]:
    found = client().hmget(keys.course_codes(), codes) if codes else []
    return {code: int(pk) if pk else None for code, pk in zip(codes, found)}


# --- schema migration -----------------------------------------------------------------


@dataclass
class MigrationStep:
    cursor: int
    scanned: int
    upgraded: int


def migration_cursor(entity: str) -> int:
    return int(client().hget(keys.migration(entity), "cursor") or 0)


def _people_keys(entity: str, cursor: int, batch: int) -> tuple[int, list[tuple[int, str]]]:
    cursor, found = client().scan(cursor, match=f"school:{entity}:*", count=batch, _type="hash")
    ids = sorted({int(k.rsplit(":", 1)[1]) for k in found if k.rsplit(":", 1)[1].isdigit()})
    return cursor, [(pk, keys.doc(entity, pk)) for pk in ids]


def migrate_step(entity: str, cursor: int, batch: int, actor: str, dry_run: bool = False) -> MigrationStep:
    """Upgrade the schema-1 documents of one SCAN batch to schema 2.

    Every document of the batch is WATCHed, so an edit from the app in the
    meantime aborts and retries the batch (the edit has upgraded it already,
    and the retry skips it). The next cursor is saved in the same transaction,
    so an interrupted run resumes where it stopped; upgraded documents are
    skipped, so any run is idempotent.
    """
    next_cursor, found = _people_keys(entity, cursor, batch)
    if dry_run:
        pipe = client().pipeline(transaction=False)
        for _, key in found:
            pipe.hget(key, "schema")
        old = sum(1 for v in (pipe.execute() if found else []) if v == "1")
        return MigrationStep(next_cursor, len(found), old)

    def read(p):
        for _, key in found:
            p.hgetall(key)

    def write(tx, replies):
        upgraded = 0
        for (pk, _), fields in zip(found, replies):
            if fields and fields.get("schema") == "1":
                queue_document(tx, entity, pk, translate(fields), fields)
                upgraded += 1
        tx.hset(keys.migration(entity), mapping={"cursor": next_cursor})
        if next_cursor == 0:
            tx.delete(keys.migration(entity))
        if upgraded:
            queue_event(tx, _event(actor, "migrated", entity, 0, f"{upgraded} {entity}s to schema 2"))
        return upgraded

    upgraded = _atomic([key for _, key in found] + [keys.migration(entity)], read, write)
    return MigrationStep(next_cursor, len(found), upgraded)


# --- seeding: writes queued on the seeder's pipeline ------------------------------------


def queue_link(pipe, course_id: int, instructor_id: int) -> None:
    pipe.sadd(keys.course_instructors(course_id), instructor_id)
    pipe.sadd(keys.instructor_courses(instructor_id), course_id)


def queue_enrolment(pipe, course_id: int, student_id: int) -> None:
    pipe.sadd(keys.course_students(course_id), student_id)
    pipe.sadd(keys.student_courses(student_id), course_id)


def queue_seed_event(pipe, entity: str, count: int) -> None:
    queue_event(pipe, _event("seed", "created", entity, 0, f"{count} {entity}s"))


def transaction():
    return client().pipeline(transaction=True)


# --- integrity reads (see school/integrity.py): SCAN-based, pipelined per batch ---------

SCAN_BATCH = 1000


def id_batches(entity: str) -> Iterator[list[int]]:
    """Every id in the entity's index, in batches, by ZSCAN."""
    members = client().zscan_iter(keys.index(entity), count=SCAN_BATCH)
    yield from batched((int(member) for member, _ in members), SCAN_BATCH)


SIDES = {
    # entity -> (its relation set, the other entity, the other side's set)
    ("teaching", "course"): (keys.course_instructors, "instructor", keys.instructor_courses),
    ("teaching", "instructor"): (keys.instructor_courses, "course", keys.course_instructors),
    ("enrolment", "student"): (keys.student_courses, "course", keys.course_students),
    ("enrolment", "course"): (keys.course_students, "student", keys.student_courses),
}


def relation_members(relation: str, entity: str) -> Iterator[tuple[int, list[int]]]:
    """(id, ids it relates to) for every document of ``entity``; rosters by SSCAN."""
    own, _, _ = SIDES[(relation, entity)]
    for ids in id_batches(entity):
        if (relation, entity) == ("enrolment", "course"):
            for pk in ids:
                yield pk, [int(m) for m in client().sscan_iter(own(pk), count=SCAN_BATCH)]
        else:
            for pk, members in zip(ids, pipelined(ids, lambda p, pk: p.smembers(own(pk)))):
                yield pk, [int(m) for m in members]


def one_sided(relation: str, entity: str) -> Iterator[tuple[int, int, str, str]]:
    """(id, other id, its key, the other's key) where the other side lacks the pair."""
    own, other_entity, other = SIDES[(relation, entity)]
    chunk: list[tuple[int, int]] = []

    def flush():
        replies = pipelined(chunk, lambda p, pair: p.sismember(other(pair[1]), pair[0]))
        found = [(a, b, own(a), other(b)) for (a, b), ok in zip(chunk, replies) if not ok]
        chunk.clear()
        return found

    for pk, members in relation_members(relation, entity):
        chunk.extend((pk, m) for m in members)
        if len(chunk) >= SCAN_BATCH:
            yield from flush()
    yield from flush()


def existing(entity: str, ids: list[int]) -> set[int]:
    """Which of ``ids`` are documents (ZMSCORE on the index, one round trip)."""
    if not ids:
        return set()
    scores = client().zmscore(keys.index(entity), ids)
    return {pk for pk, score in zip(ids, scores) if score is not None}


def relation_sizes(relation: str, entity: str) -> Iterator[tuple[int, int]]:
    own, _, _ = SIDES[(relation, entity)]
    for ids in id_batches(entity):
        yield from zip(ids, pipelined(ids, lambda p, pk: p.scard(own(pk))))


def seat_counts() -> Iterator[tuple[int, int, int, int]]:
    """(course id, capacity, enrolled, live holds) for every course."""
    now = now_ms()
    for ids in id_batches("course"):

        def queue(p, pk):
            p.hget(keys.doc("course", pk), "capacity")
            p.scard(keys.course_students(pk))
            p.zcount(keys.course_holds(pk), now, "+inf")

        replies = pipelined(ids, queue)
        for i, pk in enumerate(ids):
            capacity, enrolled, held = replies[3 * i : 3 * i + 3]
            yield pk, int(capacity or 0), enrolled, held


def scan_documents(entity: str) -> Iterator[list[tuple[int, dict[str, str]]]]:
    """Every hash of ``entity`` found by SCAN (not through the index), in batches, with its fields."""
    cursor = None
    while cursor != 0:
        cursor, found = _people_keys(entity, cursor or 0, SCAN_BATCH)
        docs = pipelined(found, lambda p, item: p.hgetall(item[1]))
        yield [(pk, fields) for (pk, _), fields in zip(found, docs)]


def scan_keys(pattern: str) -> Iterator[str]:
    """Keys matching a registered pattern, by SCAN (integrity only)."""
    yield from client().scan_iter(match=pattern, count=SCAN_BATCH)


def index_members(entity: str) -> tuple[set[int], set[str], dict[str, str]]:
    """The id index, the lexicographic index and (courses) the code index, for comparison."""
    ids = {int(m) for m, _ in client().zscan_iter(keys.index(entity), count=SCAN_BATCH)}
    lex = {m for m, _ in client().zscan_iter(keys.lex(entity), count=SCAN_BATCH)}
    codes = dict(client().hscan_iter(keys.course_codes(), count=SCAN_BATCH)) if entity == "course" else {}
    return ids, lex, codes


def expected_indexes(entity: str) -> tuple[set[int], set[str], dict[str, str], dict[str, int]]:
    """What the indexes and version counts should hold, from the documents themselves."""
    ids, lex, codes, versions = set(), set(), {}, {}
    for batch in scan_documents(entity):
        for pk, fields in batch:
            ids.add(pk)
            lex.add(_lex_member(entity, pk, fields))
            if entity == "course":
                codes[fields.get("code", "")] = str(pk)
            else:
                versions[fields.get("schema", "?")] = versions.get(fields.get("schema", "?"), 0) + 1
    return ids, lex, codes, versions


def rebuild_indexes(entity: str) -> None:
    """Repair: the id, lexicographic, code indexes and version counts, from the documents, in one transaction."""
    ids, lex, codes, versions = expected_indexes(entity)
    tx = client().pipeline(transaction=True)
    tx.delete(keys.index(entity), keys.lex(entity))
    if ids:
        tx.zadd(keys.index(entity), {str(pk): pk for pk in ids})
        tx.zadd(keys.lex(entity), dict.fromkeys(lex, 0))
    if entity == "course":
        tx.delete(keys.course_codes())
        if codes:
            tx.hset(keys.course_codes(), mapping=codes)
    else:
        tx.delete(keys.schemas(entity))
        if versions:
            tx.hset(keys.schemas(entity), mapping=versions)
    tx.execute()


def hold_entries() -> Iterator[tuple[str, int, int, int, float | None, float | None, int]]:
    """(hold key, course, student, pttl, course score, student score, now) for every hold key found by SCAN."""
    now = now_ms()
    for key in scan_keys("school:hold:*:*"):
        _, _, course_id, student_id = key.split(":")
        c, s = int(course_id), int(student_id)
        pipe = client().pipeline(transaction=False)
        pipe.pttl(key)
        pipe.zscore(keys.course_holds(c), s)
        pipe.zscore(keys.student_holds(s), c)
        pttl, course_score, student_score = pipe.execute()
        if pttl != -2:
            yield key, c, s, pttl, course_score, student_score, now


def live_index_holds() -> Iterator[tuple[int, int, float, bool]]:
    """(course, student, expiry, hold key exists) for every live entry of the course holds indexes."""
    now = now_ms()
    for ids in id_batches("course"):
        indexes = pipelined(ids, lambda p, pk: p.zrangebyscore(keys.course_holds(pk), now, "+inf", withscores=True))
        pairs = [(c, int(s), score) for c, entries in zip(ids, indexes) for s, score in entries]
        exists = pipelined(pairs, lambda p, pair: p.exists(keys.hold(pair[0], pair[1])))
        for (c, s, score), found in zip(pairs, exists):
            # A key read after its deadline has passed is gone by design, not missing.
            yield c, s, score, bool(found) or score <= now_ms()
