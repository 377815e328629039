"""The set algebra screen: ZINTERSTORE / ZUNIONSTORE / ZDIFFSTORE over rosters, paged inside Redis."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from config.redis import client
from config.store.sorting import sort_options
from school import conf, keys
from school.documents import LIST_FIELDS, ROW_FIELDS, Course, Person, from_hmget
from school.store.core import read
from school.store.detail import fields_of, joined


@dataclass
class AlgebraResult:
    courses: list[Course]
    sizes: dict[int, int]
    students: list[Person]  # each read with ROW_FIELDS: the name and contact a row shows
    total: int
    key: str


WHOLE = 2_048  # the rosters' members one command combines at most (ZUNIONSTORE of that many: about 1 ms)
STEP = 512  # the rosters' members one step of a larger algebra reads at most, shared among them


def algebra(op: str, course_ids: list[int], offset: int, count: int) -> AlgebraResult:
    """The set operation stored in a key that expires within the algebra TTL, one page of it with its
    fields, and each course with its roster's size: one command (``lua/algebra.lua``). Rosters of more
    than ``WHOLE`` members in all are combined in bounded steps first (``build``), so no command holds
    the server for as long as they are large: a round trip a step, then the page's."""
    dest, built = keys.algebra(op, course_ids), keys.algebra_built(secrets.token_hex(8))
    rosters = [keys.course_students(c) for c in course_ids]
    docs = [keys.doc("course", c) for c in course_ids]
    script_keys, head, tail = [dest, built, *rosters, *docs], [_STORE[op], conf.algebra_ttl(), offset, count], _ARGS
    replies = read("algebra", script_keys, [*head, WHOLE, *tail])
    if replies == ["steps"]:
        build(op, built, rosters)
        replies = read("algebra", script_keys, [*head, "built", *tail])
    total, students = replies[0], joined("student", replies[1], ROW_FIELDS)
    rest = iter(replies[2:])
    courses, sizes = [], {}
    for course_id in course_ids:
        doc, size = from_hmget("course", course_id, next(rest)), next(rest)
        if doc is not None:
            courses.append(doc)
            sizes[course_id] = size
    return AlgebraResult(courses, sizes, students, total, dest)


def per_roster(rosters: int) -> int:
    """The members of each of ``rosters`` rosters one step reads at most."""
    return max(1, STEP // rosters)


def build(op: str, built: str, rosters: list[str]) -> None:
    """Fill ``built`` with the set operation over ``rosters`` a slice of ids at a time (``lua/algebra_step.lua``:
    ``STEP`` members of the rosters at most, as many of each): as SCAN, a student enrolled or dropped meanwhile
    may or may not be counted."""
    each, ttl, after = per_roster(len(rosters)), conf.algebra_ttl(), "-inf"
    while after != "done":
        after = read("algebra_step", [built, *rosters], [_STORE[op], after, each, ttl])


_STORE = {"inter": "ZINTERSTORE", "union": "ZUNIONSTORE", "diff": "ZDIFFSTORE"}
_ARGS = [len(LIST_FIELDS["course"]), *LIST_FIELDS["course"], *sort_options(get=fields_of("student", ROW_FIELDS))]


def course_ids_for_codes(codes: list[str]) -> dict[str, int | None]:
    found = client().hmget(keys.course_codes(), codes) if codes else []
    return {code: int(pk) if pk else None for code, pk in zip(codes, found)}
