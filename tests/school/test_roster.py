"""A course's roster page reads its page, not its roster: the members the page's commands walk in the
roster key are the same at any roster size (SLOWLOG at threshold 0 lists a script's own commands)."""

from django.test import tag

from config.redis import raw_client
from school import keys, store
from school.documents import Person
from tests.base import RedisTestCase, commands_logged, flush_test_redis
from tests.school.helpers import ACTOR, course, student

SIZES = (60, 600)  # a roster kept compact (listpack) and one past it (skiplist)
PAGE = 25


def walked(commands: list[list[bytes]], key: str) -> int:
    """Members of ``key`` the commands walked: a rank range its window (ZRANGE, or SORT BY nosort LIMIT of a
    sorted set), a count or a lookup none, any other command naming the key (SORT of a set, SMEMBERS, a scan)
    the whole key."""
    server, name = raw_client(), key.encode()
    size = server.zcard(key) if server.type(key) == b"zset" else server.scard(key)
    total = 0
    for words in commands:
        command = words[0].upper()
        if name not in words[1:] or command in (b"EVAL", b"EVALSHA"):  # a script: its own commands are logged
            continue
        if command in (b"ZCARD", b"SCARD", b"ZSCORE", b"SISMEMBER", b"TYPE", b"OBJECT"):
            continue
        if command in (b"ZRANGE", b"ZREVRANGE") and words[1] == name:
            start, stop = int(words[2]), int(words[3])
            total += max(0, min(stop, size - 1) - start + 1) if stop >= 0 else size
        elif command == b"SORT" and words[2:4] == [b"BY", b"nosort"] and words[4] == b"LIMIT":
            # A sorted set BY nosort: SORT takes the LIMIT's range by rank, not the whole set.
            start, count = int(words[5]), int(words[6])
            total += max(0, min(count, size - start)) if server.type(key) == b"zset" else size
        else:
            total += size
    return total


def enrolled(size: int) -> tuple[int, list[int]]:
    """A course with ``size`` students enrolled (bulk writes, as the seeder's), and their ids."""
    c = course(capacity=1_000)
    ids = list(store.reserve_ids("student", size))
    batch = store.bulk_batch()
    people = {pk: Person(pk, f"S{pk:04d}", f"s{pk}@example.org", [f"s{pk}@example.org"]).to_hash() for pk in ids}
    store.queue_new_documents(batch, "student", people)
    store.queue_pairs(batch, "enrolment", [(c, pk) for pk in reversed(ids)])
    batch.send()
    return c, ids


class RosterPageTest(RedisTestCase):
    def test_a_page_walks_the_page_alone_at_any_roster_size(self):
        work = {}
        for size in SIZES:
            with self.subTest(size=size):
                flush_test_redis()
                c, ids = enrolled(size)
                with commands_logged() as commands:
                    found = store.course_detail(c, PAGE, PAGE)
                self.assertEqual(found.enrolled, size)
                self.assertEqual([p.id for p in found.roster], ids[PAGE : 2 * PAGE])  # the second page, by id
                self.assertEqual(found.roster[0].name, f"S{ids[PAGE]:04d}")
                work[size] = walked(commands, keys.course_students(c))
        self.assertEqual(work, dict.fromkeys(SIZES, PAGE))


@tag("cluster")
class RosterReadTest(RedisTestCase):
    def test_pages_in_id_order_in_either_encoding(self):
        for size in SIZES:
            with self.subTest(size=size):
                flush_test_redis()
                c, ids = enrolled(size)
                for offset in (0, PAGE, size - 10, size):
                    found = store.course_detail(c, offset, PAGE)
                    self.assertEqual([p.id for p in found.roster], ids[offset : offset + PAGE])
                self.assertEqual(store.course_detail(c, 0, 0).roster, [])

    def test_a_page_view_leaves_a_small_roster_compact(self):
        """The page is read by ZRANGE, not SORT, which would turn a small sorted set into a skiplist for good."""
        c, _ = enrolled(SIZES[0])
        before = raw_client().object("encoding", keys.course_students(c))
        self.client.get(f"/school/courses/{c}/")
        self.assertEqual(raw_client().object("encoding", keys.course_students(c)), before)
        self.assertIn(before, (b"ziplist", b"listpack"))

    def test_every_write_keeps_the_roster_in_id_order(self):
        c = course(capacity=10)
        a, b, d, e = (student(name) for name in ("Ann", "Bob", "Dan", "Eve"))
        store.enrol(c, d, actor=ACTOR)
        store.hold_seat(c, a, actor=ACTOR)
        store.confirm_hold(c, a, actor=ACTOR)
        store.enrol_many(c, [e, b], actor=ACTOR)
        store.drop(c, d, actor=ACTOR)
        roster = raw_client().zrange(keys.course_students(c), 0, -1, withscores=True)
        self.assertEqual(roster, [(str(pk).encode(), float(pk)) for pk in (a, b, e)])  # each scored by its id
        self.assertEqual([p.name for p in store.course_detail(c, 0, 25).roster], ["Ann", "Bob", "Eve"])


@tag("cluster")
class RosterAlgebraTest(RedisTestCase):
    """The set algebra over rosters in either encoding: what Python's sets say, in id order, paged."""

    def test_inter_union_and_diff_in_either_encoding(self):
        for size in SIZES:
            with self.subTest(size=size):
                flush_test_redis()
                ids = list(store.reserve_ids("student", 2 * size))
                batch = store.bulk_batch()
                people = {pk: Person(pk, f"S{pk:04d}", f"s{pk}@x.org", [f"s{pk}@x.org"]).to_hash() for pk in ids}
                store.queue_new_documents(batch, "student", people)
                a, b = course("A-1", capacity=2 * size), course("B-1", capacity=2 * size)
                rosters = {a: set(ids[: size + size // 3]), b: set(ids[size - size // 3 :])}
                store.queue_pairs(batch, "enrolment", [(c, s) for c, members in rosters.items() for s in members])
                batch.send()
                encoding = raw_client().object("encoding", keys.course_students(a))
                self.assertEqual(encoding == b"skiplist", size > 128, encoding)  # zset-max-ziplist-entries
                expected = {
                    "inter": rosters[a] & rosters[b],
                    "union": rosters[a] | rosters[b],
                    "diff": rosters[a] - rosters[b],
                }
                for op, members in expected.items():
                    found = store.algebra(op, [a, b], 10, PAGE)
                    self.assertEqual(found.total, len(members), op)
                    self.assertEqual([p.id for p in found.students], sorted(members)[10 : 10 + PAGE], op)
                    self.assertEqual(found.sizes, {c: len(m) for c, m in rosters.items()})
                    stored = raw_client().zrange(found.key, 0, -1, withscores=True)
                    self.assertEqual(stored, [(str(pk).encode(), float(pk)) for pk in sorted(members)], op)
