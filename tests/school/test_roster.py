"""A course's roster page reads its page, not its roster: the members the page's commands walk in the
roster key are the same at any roster size (SLOWLOG at threshold 0 lists a script's own commands)."""

from contextlib import contextmanager

from config.redis import raw_client
from school import keys, store
from school.documents import Person
from tests.base import RedisTestCase
from tests.school.helpers import ACTOR, course, student

SIZES = (60, 600)  # a roster kept compact (listpack) and one past it (skiplist)
PAGE = 25


@contextmanager
def logged():
    """Every command the server runs in the block, a script's own too, oldest first."""
    server = raw_client()
    server.config_set("slowlog-max-len", 10_000)
    server.config_set("slowlog-log-slower-than", 0)
    server.slowlog_reset()
    found: list[list[bytes]] = []
    try:
        yield found
        found += [e["command"].split() for e in sorted(server.slowlog_get(10_000), key=lambda e: e["id"])]
    finally:
        server.config_set("slowlog-log-slower-than", 10_000)
        server.slowlog_reset()


def walked(commands: list[list[bytes]], key: str) -> int:
    """Members of ``key`` the commands walked: a rank range its window, a count or a lookup none, any other
    command naming the key (SORT, SMEMBERS, a scan) the whole key."""
    server, name = raw_client(), key.encode()
    size = server.zcard(key) if server.type(key) == b"zset" else server.scard(key)
    total = 0
    for words in commands:
        command = words[0].upper()
        if name not in words[1:] or command in (b"EVAL", b"EVALSHA"):  # a script: its own commands are logged
            continue
        if command in (b"ZCARD", b"SCARD", b"ZSCORE", b"SISMEMBER", b"TYPE"):
            continue
        if command in (b"ZRANGE", b"ZREVRANGE") and words[1] == name:
            start, stop = int(words[2]), int(words[3])
            total += max(0, min(stop, size - 1) - start + 1) if stop >= 0 else size
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
                raw_client().flushdb()
                c, ids = enrolled(size)
                with logged() as commands:
                    found = store.course_detail(c, PAGE, PAGE)
                self.assertEqual(found.enrolled, size)
                self.assertEqual([p.id for p in found.roster], ids[PAGE : 2 * PAGE])  # the second page, by id
                self.assertEqual(found.roster[0].name, f"S{ids[PAGE]:04d}")
                work[size] = walked(commands, keys.course_students(c))
        self.assertEqual(work, dict.fromkeys(SIZES, PAGE))

    def test_the_last_page_is_a_short_range(self):
        c, ids = enrolled(SIZES[0])
        found = store.course_detail(c, 50, 25)
        self.assertEqual([p.id for p in found.roster], ids[50:])
        self.assertEqual(store.course_detail(c, 75, 25).roster, [])
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
