"""The set algebra screen: SINTERSTORE / SUNIONSTORE / SDIFFSTORE over rosters, paged inside Redis."""

from __future__ import annotations

from dataclasses import dataclass

from config.redis import client
from school import conf, keys
from school.documents import LIST_FIELDS, Course, Person, from_hmget
from school.store.detail import fields_of, joined


@dataclass
class AlgebraResult:
    courses: list[Course]
    sizes: dict[int, int]
    students: list[Person]
    total: int
    key: str


def algebra(op: str, course_ids: list[int], offset: int, count: int) -> AlgebraResult:
    """SINTERSTORE / SUNIONSTORE / SDIFFSTORE into a key that expires within the
    algebra TTL, then one page of it by SORT … LIMIT … GET (the page's fields joined inside
    Redis), and each course with its roster's size: one round trip."""
    dest = keys.algebra(op, course_ids)
    rosters = [keys.course_students(c) for c in course_ids]
    store_op = {"inter": "sinterstore", "union": "sunionstore", "diff": "sdiffstore"}[op]
    tx = client().pipeline(transaction=True)
    getattr(tx, store_op)(dest, rosters)
    tx.expire(dest, conf.algebra_ttl())
    tx.sort(dest, start=offset, num=count, get=fields_of("student"))
    for course_id, roster in zip(course_ids, rosters):
        tx.hmget(keys.doc("course", course_id), LIST_FIELDS["course"])
        tx.scard(roster)
    replies = tx.execute()
    total, students = replies[0], joined("student", replies[2], by_id=False)
    rest = iter(replies[3:])
    courses, sizes = [], {}
    for course_id in course_ids:
        doc, size = from_hmget("course", course_id, next(rest)), next(rest)
        if doc is not None:
            courses.append(doc)
            sizes[course_id] = size
    return AlgebraResult(courses, sizes, students, total, dest)


def course_ids_for_codes(codes: list[str]) -> dict[str, int | None]:
    found = client().hmget(keys.course_codes(), codes) if codes else []
    return {code: int(pk) if pk else None for code, pk in zip(codes, found)}
