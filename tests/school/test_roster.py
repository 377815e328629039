"""A course's roster page reads its page, not its roster: the members the page's commands walk in the
roster key are the same at any roster size (SLOWLOG at threshold 0 lists a script's own commands)."""

import importlib
import random
from unittest import mock

from django.test import tag

from config.redis import raw_client
from school import keys, store
from school.documents import Person
from school.store.core import read
from tests.base import RedisTestCase, commands_logged, flush_test_redis
from tests.school.helpers import ACTOR, course, student

algebra_module = importlib.import_module("school.store.algebra")  # the package's ``algebra`` is the function
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


def enrolled_in(rosters: list[set[int]]) -> list[int]:
    """Courses whose rosters are ``rosters`` (student ids reserved from 1 on, bulk written): their ids."""
    ids = sorted(set().union(*rosters))
    reserved = list(store.reserve_ids("student", max(ids)))
    batch = store.bulk_batch()
    people = {pk: Person(pk, f"S{pk:04d}", f"s{pk}@x.org", [f"s{pk}@x.org"]).to_hash() for pk in reserved}
    store.queue_new_documents(batch, "student", people)
    courses = [course(f"R-{n}", capacity=max(1, len(r))) for n, r in enumerate(rosters, 1)]
    store.queue_pairs(batch, "enrolment", [(c, s) for c, r in zip(courses, rosters) for s in r])
    batch.send()
    return courses


STEP = 32


def stepped(whole: int = 0):
    """The algebra built in steps of ``STEP`` past ``whole`` members in all."""
    return mock.patch.multiple(algebra_module, WHOLE=whole, STEP=STEP)


class SteppedAlgebraBoundTest(RedisTestCase):
    """Each step's commands, read from SLOWLOG at threshold 0 (one server)."""

    def test_each_step_reads_a_step_of_each_roster_and_the_steps_grow_with_the_rosters(self):
        steps = {}
        for size in (200, 400):
            flush_test_redis()
            rosters = [set(range(1, size + 1)), set(range(size // 2, 2 * size))]
            courses = enrolled_in(rosters)
            with stepped(), commands_logged() as commands:
                found = store.algebra("union", courses, 0, PAGE)
                each = algebra_module.per_roster(len(rosters))
            self.assertEqual(found.total, 2 * size - 1)
            names = [words[0].upper() for words in commands]
            self.assertFalse({b"ZUNIONSTORE", b"ZINTERSTORE", b"ZDIFFSTORE"} & set(names))  # never whole
            ranges = [words for words in commands if words[0].upper() == b"ZRANGEBYSCORE"]
            self.assertTrue(ranges)
            self.assertEqual(each, STEP // 2)
            self.assertTrue(all(words[-1] == str(each).encode() for words in ranges))  # LIMIT 0 STEP/2
            steps[size] = len(ranges) // len(rosters)  # a ZRANGEBYSCORE of each roster a step
        # a step covers STEP/2 members of the roster that ends it at least: the steps grow with the rosters
        self.assertGreater(steps[400], steps[200])
        self.assertLessEqual(steps[400], (2 * 400 - 1) // (STEP // 2) + 2)


@tag("cluster")
class SteppedAlgebraTest(RedisTestCase):
    """Past ``WHOLE`` members in all, the algebra is built a slice of ids at a time: the same result, no
    command combining the rosters whole, and each step reading ``STEP`` members of the rosters at most."""

    def test_inter_union_and_diff_match_pythons_sets_whole_or_in_steps(self):
        rng = random.Random(7)
        for n in (2, 3):
            flush_test_redis()
            rosters = [set(rng.sample(range(1, 400), rng.randint(40, 150))) for _ in range(n)]
            rosters[1] |= set(sorted(rosters[0])[:20])  # some in both, some ids past a step's end in one only
            courses = enrolled_in(rosters)
            expected = {
                "inter": set.intersection(*rosters),
                "union": set.union(*rosters),
                "diff": rosters[0] - set.union(*rosters[1:]),
            }
            for op, members in expected.items():
                for whole in (None, 0):
                    with self.subTest(n=n, op=op, stepped=whole == 0):
                        raw_client().delete(keys.algebra(op, courses))  # computed afresh, not the stored result
                        with stepped(algebra_module.WHOLE if whole is None else whole):
                            found = store.algebra(op, courses, 5, PAGE)
                        self.assertEqual(found.total, len(members))
                        self.assertEqual([p.id for p in found.students], sorted(members)[5 : 5 + PAGE])
                        stored = raw_client().zrange(found.key, 0, -1, withscores=True)
                        self.assertEqual(stored, [(str(pk).encode(), float(pk)) for pk in sorted(members)])
                        self.assertGreater(raw_client().ttl(found.key), 0)
                        self.assertEqual(list(raw_client().scan_iter(match=keys.algebra_built("*"))), [])

    def test_a_stored_large_result_is_paged_without_steps_until_it_expires(self):
        rosters = [set(range(1, 200)), set(range(100, 300))]
        courses = enrolled_in(rosters)
        with stepped():
            first = store.algebra("union", courses, 0, PAGE)
            ttl = raw_client().ttl(first.key)
            with self.assertRoundTrips(1):  # the page alone: no step
                second = store.algebra("union", courses, PAGE, PAGE)
        self.assertEqual([p.id for p in second.students], list(range(PAGE + 1, 2 * PAGE + 1)))
        self.assertEqual(second.total, 299)
        self.assertLessEqual(raw_client().ttl(first.key), ttl)  # its time to live left as it was

    def test_an_abandoned_build_expires_and_leaves_the_last_result_alone(self):
        rosters = [set(range(1, 300)), set(range(200, 500))]
        courses = enrolled_in(rosters)
        found = store.algebra("inter", courses, 0, PAGE)
        built = keys.algebra_built("abandoned")
        rosters_keys = [keys.course_students(c) for c in courses]
        with stepped():
            after = read("algebra_step", [built, *rosters_keys], ["ZUNIONSTORE", "-inf", STEP, 60])
        self.assertNotEqual(after, "done")  # one step taken, then the request died
        self.assertTrue(0 < raw_client().ttl(built) <= 60)
        self.assertEqual(raw_client().zcard(found.key), len(rosters[0] & rosters[1]))
