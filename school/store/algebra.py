"""The set algebra screen: SINTERSTORE / SUNIONSTORE / SDIFFSTORE over rosters, paged inside Redis."""

from __future__ import annotations

from dataclasses import dataclass

from config.redis import client
from school import conf, keys
from school.documents import LIST_FIELDS, Course, Person, from_hmget
from school.store.core import queue_labels, take_docs


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
        queue_labels(second, "student", page_ids)
        students = take_docs("student", page_ids, iter(second.execute()))
    return AlgebraResult(courses, sizes, students, total, dest)


def course_ids_for_codes(codes: list[str]) -> dict[str, int | None]:
    found = client().hmget(keys.course_codes(), codes) if codes else []
    return {code: int(pk) if pk else None for code, pk in zip(codes, found)}
