"""List screens and pickers: a list page is one read script (``lua/read_list.lua``); a search of any
part of a name, and a picker, two round trips (the ids, then their fields)."""

from __future__ import annotations

from dataclasses import dataclass, field

from config.listing import ListState
from config.redis import client
from config.store import pipelined
from school import keys
from school.documents import LIST_FIELDS, Course, Person, from_hmget
from school.store.core import PICKER_LIMIT, lex_id, now_ms, queue_has, queue_size, read
from school.store.names import SEARCH_LIMIT, queue_search, usable


@dataclass
class Row:
    doc: Course | Person
    counts: dict[str, int] = field(default_factory=dict)


def _folded(q: str) -> str:
    return q.casefold().replace("\x00", "")


def _prefix_range(folded: str) -> tuple[bytes, bytes]:
    """The ZRANGEBYLEX bounds of the lexicographic index's members starting with ``folded``."""
    return b"[" + folded.encode(), b"(" + folded.encode() + b"\xff"


_ROW_COUNTS = {
    "course": (("students", keys.course_students), ("instructors", keys.course_instructors)),
    "instructor": (("courses", keys.instructor_courses),),
    "student": (("courses", keys.student_courses),),
}


def _search_page(entity: str, state: ListState) -> tuple[list[int], int, dict[str, str], bool]:
    """A search of any part of a name (a course's title): (the page's ids, the total, the schema counts,
    whether it left names past ``SEARCH_LIMIT``), in one transaction. The prefix range is read whatever
    the n-gram cap, so a code or name typed whole is never hidden behind other matches: it comes first."""
    first = client().pipeline(transaction=True)
    read = queue_search(first, entity, state.q)
    searched = len(first.command_stack)
    folded = _folded(state.q)
    first.zrangebylex(keys.lex(entity), *_prefix_range(folded), 0, SEARCH_LIMIT)
    if entity != "course":
        first.hgetall(keys.schemas(entity))
    replies = first.execute()
    found, capped = read(replies[:searched])
    starting = replies[searched]
    exact = [lex_id(m) for m in starting if m.rsplit("\x00", 1)[0] == folded]
    found = list(dict.fromkeys([*exact, *(lex_id(m) for m in starting), *found]))
    capped = capped or len(starting) >= SEARCH_LIMIT
    if state.descending:
        found.reverse()
    page = found[state.offset : state.offset + state.per_page]
    return page, len(found), {} if entity == "course" else replies[searched + 1], capped


def list_page(entity: str, state: ListState) -> tuple[list[Row], int, dict[str, int], bool]:
    """One page of a list, its total, (people) the count per schema version, and whether a search left
    names past ``SEARCH_LIMIT``. A word of three characters or more finds any part of a name or title
    (two round trips); otherwise one script pages the id or lexicographic index (a prefix match)."""
    if state.q and usable(state.q):
        ids, total, schemas, capped = _search_page(entity, state)
        versions = {v: int(n) for v, n in sorted(schemas.items())}
        return _rows(entity, ids), total, versions, capped
    if state.q:
        how, index, (low, high) = "prefix", keys.lex(entity), _prefix_range(_folded(state.q))
    elif state.sort_key == "id":
        how, index, low, high = "id", keys.index(entity), "", ""
    else:
        how, index, low, high = "lex", keys.lex(entity), "", ""
    script_keys = [index] if entity == "course" else [index, keys.schemas(entity)]
    args = [how, state.offset, state.per_page, int(state.descending), low, high, *_PAGE_ARGS[entity]]
    total, flat, schemas = read("read_list", script_keys, args)
    counters = _ROW_COUNTS[entity]
    width = 1 + len(LIST_FIELDS[entity])
    rows = []
    for i in range(0, len(flat), width + len(counters)):
        doc = from_hmget(entity, int(flat[i]), flat[i + 1 : i + width])
        if doc is not None:
            rows.append(Row(doc, {name: flat[i + width + n] for n, (name, _) in enumerate(counters)}))
    versions = {v: int(n) for v, n in sorted(zip(schemas[::2], schemas[1::2]))}
    return rows, total, versions, False


_SIZE = {"set": "SCARD", "zset": "ZCARD"}


def _page_args(entity: str) -> list:
    """The fixed tail of a list page's ARGV: the fields shown, the document's key pattern, then each count's
    command and key pattern."""
    fields = LIST_FIELDS[entity]
    counts = [part for _, key in _ROW_COUNTS[entity] for part in (_SIZE[keys.kind(key)], key("*"))]
    return [len(fields), *fields, keys.doc(entity, "*"), *counts]


_PAGE_ARGS = {entity: _page_args(entity) for entity in _ROW_COUNTS}


def _rows(entity: str, ids: list[int]) -> list[Row]:
    if not ids:
        return []
    counters = _ROW_COUNTS[entity]
    second = client().pipeline(transaction=False)
    for pk in ids:
        second.hmget(keys.doc(entity, pk), LIST_FIELDS[entity])
        for _, key in counters:
            queue_size(second, key, pk)
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
    member: bool  # already related (SISMEMBER, or ZSCORE of a roster)
    held_until: int = 0  # ms, while the student holds a seat in the course
    full: bool = False  # the course has no seat left (enrolled + live holds = capacity)


@dataclass(frozen=True)
class Picker:
    """Find the other side of a relation from a page, and which keys say a candidate is related already."""

    side: str  # the page's entity
    other: str  # the entity searched for
    related: object  # page id -> the page's set of related ids
    holds: object = None  # page id -> the page's holds index, where seats can be held

    @property
    def seats(self) -> bool:
        """Whether the relation is an enrolment (enrol / hold) rather than an assignment."""
        return "student" in (self.side, self.other)

    @property
    def asks(self) -> str:
        """The command that says a candidate is related: ZSCORE of a roster, SISMEMBER of a set."""
        return "ZSCORE" if keys.kind(self.related) == "zset" else "SISMEMBER"


PICKERS = {
    "course-instructor": Picker("course", "instructor", keys.course_instructors),
    "course-student": Picker("course", "student", keys.course_students, keys.course_holds),
    "instructor-course": Picker("instructor", "course", keys.instructor_courses),
    "student-course": Picker("student", "course", keys.student_courses, keys.student_holds),
}


def find_with_total(picker: str, pk: int, q: str) -> tuple[list[Candidate], int]:
    """Up to PICKER_LIMIT documents of the picker's other side matching ``q`` as a list search does, each
    with whether it is related (and its hold, and for seats whether the course is full), and how many
    match in all: two round trips."""
    pick = PICKERS[picker]
    if usable(q):
        ids, total = _search_page(pick.other, ListState(q=q, per_page=PICKER_LIMIT))[:2]
    else:  # shorter text: the names or codes starting with it
        first = client().pipeline(transaction=False)
        first.zlexcount(keys.lex(pick.other), *_prefix_range(_folded(q)))
        first.zrangebylex(keys.lex(pick.other), *_prefix_range(_folded(q)), 0, PICKER_LIMIT)
        total, members = first.execute()
        ids = [lex_id(member) for member in members]
    if not ids:
        return [], 0
    holds = pick.holds(pk) if pick.holds else ""
    now = now_ms()
    # Seats left: of the page's course once, or of each candidate course from a student's page.
    seat_courses = ([pk] if pick.side == "course" else ids) if pick.seats else []
    second = client().pipeline(transaction=False)
    for course_id in seat_courses:
        second.hget(keys.doc("course", course_id), "capacity")
        second.zcard(keys.course_students(course_id))
        second.zcount(keys.course_holds(course_id), now, "+inf")
    for other in ids:
        second.hmget(keys.doc(pick.other, other), LIST_FIELDS[pick.other])
        queue_has(second, pick.related, pk, other)
        if holds:
            second.zscore(holds, other)
    replies = iter(second.execute())
    full = {}
    for course_id in seat_courses:
        capacity, enrolled, held = next(replies), next(replies), next(replies)
        full[course_id] = enrolled + held >= int(capacity or 0)
    found = []
    for other in ids:
        doc, member = from_hmget(pick.other, other, next(replies)), next(replies)
        score = next(replies) if holds else None
        if doc is not None:
            held_until = int(score) if score and score > now else 0
            is_full = full.get(pk if pick.side == "course" else other, False)
            found.append(Candidate(doc, bool(member), held_until, is_full))
    return found, total


def schema_counts(entity: str) -> dict[str, int]:
    return {v: int(n) for v, n in client().hgetall(keys.schemas(entity)).items()}


def labels(entity: str, ids: list[int]) -> list[tuple[int, str]]:
    """(id, label) of each document that exists, in the order given: one pipeline of HMGETs."""
    replies = pipelined(ids, lambda pipe, pk: pipe.hmget(keys.doc(entity, pk), LIST_FIELDS[entity]))
    docs = (from_hmget(entity, pk, values) for pk, values in zip(ids, replies))
    return [(doc.id, doc.label) for doc in docs if doc is not None]


def course_by_code(code: str) -> int | None:
    """The id of the course whose code is ``code`` (in any case), or None: one ZRANGEBYLEX of the code index."""
    folded = _folded(code.strip())
    if not folded:
        return None
    low = ("[" + folded + "\x00").encode()
    members = client().zrangebylex(keys.lex("course"), low, low + b"\xff", 0, 1)
    return lex_id(members[0]) if members else None
