"""Integrity reads and repairs of the school (see school/integrity.py): SCAN-based, pipelined per batch."""

from __future__ import annotations

from collections.abc import Iterator

from config.redis import client
from config.store import batched, pipelined
from school import keys
from school.store.core import lex_member, now_ms, queue_has, queue_size
from school.store.migration import people_keys

SCAN_BATCH = 1000


def id_batches(entity: str) -> Iterator[list[int]]:
    """Every id in the entity's index, in batches, by ZSCAN."""
    members = client().zscan_iter(keys.index(entity), count=SCAN_BATCH)
    yield from batched((int(member) for member, _ in members), SCAN_BATCH)


def relation_members(relation: str, entity: str) -> Iterator[tuple[int, list[int]]]:
    """(id, ids it relates to) for every document of ``entity``; rosters by ZSCAN."""
    own, _, _ = keys.SIDES[(relation, entity)]
    for ids in id_batches(entity):
        if (relation, entity) == ("enrolment", "course"):
            for pk in ids:
                yield pk, [int(m) for m, _ in client().zscan_iter(own(pk), count=SCAN_BATCH)]
        else:
            for pk, members in zip(ids, pipelined(ids, lambda p, pk: p.smembers(own(pk)))):
                yield pk, [int(m) for m in members]


def misplaced_in_rosters() -> Iterator[tuple[int, str, float]]:
    """(course id, member, score) of every roster member not scored by its own id, which would put it out
    of id order on the course's page; by ZSCAN."""
    for ids in id_batches("course"):
        for pk in ids:
            for member, score in client().zscan_iter(keys.course_students(pk), count=SCAN_BATCH):
                if not member.isdigit() or score != int(member):
                    yield pk, member, score


def one_sided(relation: str, entity: str) -> Iterator[tuple[int, int, str, str]]:
    """(id, other id, its key, the other's key) where the other side lacks the pair."""
    own, other_entity, other = keys.SIDES[(relation, entity)]
    chunk: list[tuple[int, int]] = []

    def flush():
        replies = pipelined(chunk, lambda p, pair: queue_has(p, other, pair[1], pair[0]))
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
    own, _, _ = keys.SIDES[(relation, entity)]
    for ids in id_batches(entity):
        yield from zip(ids, pipelined(ids, lambda p, pk: queue_size(p, own, pk)))


def seat_counts() -> Iterator[tuple[int, int, int, int]]:
    """(course id, capacity, enrolled, live holds) for every course."""
    now = now_ms()
    for ids in id_batches("course"):

        def queue(p, pk):
            p.hget(keys.doc("course", pk), "capacity")
            p.zcard(keys.course_students(pk))
            p.zcount(keys.course_holds(pk), now, "+inf")

        replies = pipelined(ids, queue)
        for i, pk in enumerate(ids):
            capacity, enrolled, held = replies[3 * i : 3 * i + 3]
            yield pk, int(capacity or 0), enrolled, held


def scan_documents(entity: str) -> Iterator[list[tuple[int, dict[str, str]]]]:
    """Every hash of ``entity`` found by SCAN (not through the index), in batches, with its fields."""
    cursor = None
    while cursor != 0:
        cursor, found = people_keys(entity, cursor or 0, SCAN_BATCH)
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
            lex.add(lex_member(entity, pk, fields))
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
    for key in scan_keys(keys.hold("*", "*")):
        course_id, student_id = key.split(":")[-2:]
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
