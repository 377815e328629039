"""An ordered name search visits a bounded number of elements per command, whatever the size of the
collection or of a common piece's set (``config.store.ngrams._ORDERED``), and still answers the first
matches in order."""

from catalog import keys
from catalog.documents import name_score
from catalog.store import NAMES, suggest
from cms import keys as cms_keys
from cms import store as cms
from cms.store import listing as cms_listing
from config.listing import ListState
from config.redis import raw_client
from config.store import ngrams
from tests.base import RedisTestCase, commands_logged

SIZES = (2_000, 20_000)


def load(names: dict[int, str]) -> None:
    """Product names as the catalog's index holds them: the hash's name, the name order, the pieces' sets."""
    index, client = NAMES[0], raw_client()
    pipe = client.pipeline(transaction=False)
    for pk, name in names.items():
        pipe.hset(keys.product_in(0, pk), "name", name)
    for start in range(0, len(names), 5_000):
        chunk = list(names.items())[start : start + 5_000]
        pipe.zadd(keys.sort_index("name", 0), {str(pk): name_score(name) for pk, name in chunk})
    for key, members in index.members_by_set((str(pk), name) for pk, name in names.items()).items():
        for start in range(0, len(members), 5_000):
            pipe.sadd(key, *members[start : start + 5_000])
    pipe.execute()


def visited(commands: list[list[bytes]], order: str = keys.sort_index("name", 0)) -> dict[str, int]:
    """Elements the search's commands walked: the ids of its ZRANGE windows of the ``order`` index, the ids it
    tested with SMISMEMBER, and the smallest input of each intersection (what Redis walks)."""
    client, order = raw_client(), order.encode()
    out = {"window": 0, "tested": 0, "intersected": 0}
    for words in commands:
        if words[0] == b"ZRANGE" and words[1] == order:
            out["window"] += int(words[3]) - int(words[2]) + 1
        elif words[0] == b"SMISMEMBER":
            out["tested"] += len(words) - 2
        elif words[0] in (b"ZINTERSTORE", b"SINTERSTORE"):
            numkeys = int(words[2]) if words[0] == b"ZINTERSTORE" else len(words) - 2
            inputs = words[3 : 3 + numkeys] if words[0] == b"ZINTERSTORE" else words[2:]
            sizes = [client.zcard(k) if client.type(k) == b"zset" else client.scard(k) for k in inputs]
            out["intersected"] = max(out["intersected"], min(sizes))
    return out


class OrderedSearchBoundsTest(RedisTestCase):
    def test_a_common_piece_walks_the_same_window_at_any_size(self):
        for size in SIZES:
            with self.subTest(size=size):
                raw_client().flushdb()
                names = {pk: f"Phone {pk:05d}" for pk in range(1, size + 1)}
                load(names)
                with commands_logged() as commands:
                    hits = NAMES[0].search("phone", limit=8)
                self.assertEqual([name for _, name in hits.items], [names[pk] for pk in range(1, 9)])
                work = visited(commands)
                self.assertLessEqual(work["window"], ngrams.WALK_LIMIT)
                self.assertLessEqual(work["tested"], ngrams.WALK_LIMIT * 3)  # three pieces: pho, hon, one
                self.assertEqual(work["intersected"], 0)  # no common piece's set intersected whole

    def test_a_long_walk_goes_a_step_a_command(self):
        # Names that match after the first steps of the name order: the walk goes on in further calls,
        # each walking WALK_STEP ids at most, and finds them in order.
        names = {pk: f"Alpha {pk:05d}" for pk in range(1, 601)}
        names.update({600 + pk: f"Betaz {pk:05d}" for pk in range(1, 1_201)})  # past INTERSECT_LIMIT
        load(names)
        with commands_logged() as commands:
            hits = NAMES[0].search("betaz", limit=8)
        self.assertEqual([name for _, name in hits.items], [f"Betaz {pk:05d}" for pk in range(1, 9)])
        order = keys.sort_index("name", 0).encode()
        windows = [0]  # ids of the order each script walked
        for words, by_script in zip(commands, commands.by_script):
            if words[0] in (b"EVAL", b"EVALSHA"):
                windows.append(0)
            elif by_script and words[0] == b"ZRANGE" and words[1] == order:
                windows[-1] += int(words[3]) - int(words[2]) + 1
        walked = [n for n in windows if n]
        self.assertGreater(len(walked), 1)  # the walk went on past one call
        self.assertLessEqual(max(walked), ngrams.WALK_STEP)

    def test_a_rare_piece_is_intersected_walking_that_piece_alone(self):
        for size in SIZES:
            with self.subTest(size=size):
                raw_client().flushdb()
                names = {pk: f"Phone {pk:05d}" for pk in range(1, size + 1)}
                names.update({size + pk: f"Zebra phone {pk:03d}" for pk in range(1, 301)})
                load(names)
                with commands_logged() as commands:
                    hits = NAMES[0].search("zebra phone", limit=8)
                self.assertEqual([name for _, name in hits.items], [f"Zebra phone {pk:03d}" for pk in range(1, 9)])
                work = visited(commands)
                self.assertLessEqual(work["intersected"], ngrams.INTERSECT_LIMIT)
                self.assertEqual(work["window"], 0)

    def test_matches_past_the_walk_are_left_for_a_narrower_query_and_the_search_says_so(self):
        # Two common pieces whose names come after the walk's budget in name order: nothing found
        # within it, and the search is capped rather than intersecting both sets whole.
        names = {pk: f"Alpha {pk:05d}" for pk in range(1, 5_001)}
        names.update({5_000 + pk: f"Zulu alpha {pk:05d}" for pk in range(1, 1_501)})
        load(names)
        with commands_logged() as commands:
            hits = NAMES[0].search("zulu alpha", limit=8)
        self.assertTrue(hits.capped)
        work = visited(commands)
        self.assertLessEqual(work["window"], ngrams.WALK_LIMIT)
        self.assertEqual(work["intersected"], 0)

    def test_two_letters_suggest_from_the_same_bounded_window_at_any_size(self):
        # "ph" is one piece held by every name: the suggestion walks a window of the name order, the
        # same work at both sizes, never the piece's set or the whole index.
        work = []
        for size in SIZES:
            with self.subTest(size=size):
                raw_client().flushdb()
                names = {pk: f"Phone {pk:05d}" for pk in range(1, size + 1)}
                load(names)
                with commands_logged() as commands:
                    found = suggest("ph", limit=8)
                self.assertEqual([name for _, name in found], [names[pk] for pk in range(1, 9)])
                work.append(visited(commands))
                self.assertEqual(work[-1]["intersected"], 0)
                self.assertLessEqual(work[-1]["window"], ngrams.WALK_LIMIT)
        self.assertEqual(work[0], work[1])


class ShortPieceListTest(RedisTestCase):
    def test_a_one_letter_list_search_walks_a_bounded_window_not_the_letters_set(self):
        # A letter is in nearly every title: the list searches it in bounded steps and intersects at most
        # the matches it took, the same work at both sizes, where reading the letter's set as a filter
        # intersected it whole.
        work = []
        for size in SIZES:
            raw_client().flushdb()
            pipe = raw_client().pipeline(transaction=False)
            titles = {pk: f"Post {pk:05d}" for pk in range(1, size + 1)}
            for pk, title in titles.items():
                pipe.hset(cms_keys.post(pk), mapping={"title": title, "status": "draft"})
            pipe.zadd(cms_keys.by_updated(), {str(pk): pk for pk in titles})
            for key, members in cms.TITLES.members_by_set((str(pk), t) for pk, t in titles.items()).items():
                pipe.sadd(key, *members)
            pipe.execute()
            with commands_logged() as commands:
                items, total, capped = cms.list_posts(ListState(q="p", order="-updated"))
            self.assertEqual(len(items), 25)
            self.assertTrue(capped)  # more titles hold "p" than a list search takes: the page says so
            work.append(visited(commands, cms_keys.by_updated()))
            self.assertLessEqual(work[-1]["intersected"], cms.SEARCH_LIMIT + 1)
            self.assertLessEqual(work[-1]["window"], ngrams.WALK_LIMIT)
            search = per_script(commands)[0]  # the ordered search: a letter's matches need no title read
            self.assertEqual([n for n in search if n in (b"HGET", b"HMGET", b"GET")], [], search)
            added = [(arguments(words) - 1) // 2 for words in commands if words[0] == b"ZADD"]  # matches taken
            self.assertEqual(sum(added), cms.SEARCH_LIMIT)
            self.assertEqual(max(added), cms_listing.ADD_SLICE)  # a slice a command
        self.assertEqual(work[0], work[1])


def arguments(words: list[bytes]) -> int:
    """A logged command's arguments: SLOWLOG keeps its name and 30, then says how many more it had
    ("... (N more arguments)")."""
    if words[-1] == b"arguments)" and words[-2] == b"more":
        return 30 + int(words[-3].lstrip(b"("))
    return len(words) - 1


def per_script(commands) -> list[dict[bytes, int]]:
    """The commands each script ran, counted by name: SLOWLOG logs a script's own commands before it."""
    scripts, counted = [], {}
    for words, by_script in zip(commands, commands.by_script):
        if words[0] in (b"EVAL", b"EVALSHA"):
            scripts.append(counted)
            counted = {}
        elif by_script:
            counted[words[0]] = counted.get(words[0], 0) + 1
    return scripts


class SampleSliceTest(RedisTestCase):
    def test_a_common_piece_is_sampled_in_slices_of_the_same_size_at_any_size(self):
        from school import keys as school_keys
        from school.store.names import INDEXES, SEARCH_LIMIT

        index, reads = INDEXES["student"], {}
        for size in SIZES:
            with self.subTest(size=size):
                raw_client().flushdb()
                pipe = raw_client().pipeline(transaction=False)
                names = {pk: f"Ann Student {pk}" for pk in range(1, size + 1)}
                for pk, name in names.items():
                    pipe.hset(school_keys.doc("student", pk), "name", name)
                for key, members in index.members_by_set(names.items()).items():
                    for start in range(0, len(members), 5_000):
                        pipe.sadd(key, *members[start : start + 5_000])
                pipe.execute()
                with commands_logged() as commands:
                    hits = index.search("a", limit=SEARCH_LIMIT, cap=SEARCH_LIMIT)  # "a": in every name
                self.assertEqual((len(hits.items), hits.capped), (SEARCH_LIMIT, True))
                scripts = per_script(commands)
                for counted in scripts:  # each command reads a slice's names at most
                    self.assertLessEqual(counted.get(b"HGET", 0), ngrams.SAMPLE_SLICE)
                reads[size] = [counted.get(b"HGET", 0) for counted in scripts]
                # the cap and one more, read in slices: in the scripts, and any ids a slice's SSCAN step gave
                # past its names on a pipeline of HGETs, a command each
                self.assertEqual(sum(1 for words in commands if words[0] == b"HGET"), SEARCH_LIMIT + 1)
        self.assertGreater(len(reads[SIZES[1]]), 1)

    def test_a_compact_set_that_comes_whole_has_a_slice_of_names_read_a_command(self):
        from school import keys as school_keys
        from school.store.names import INDEXES

        index, size = INDEXES["student"], 500  # at most set-max-intset-entries: SSCAN gives it whole
        pipe = raw_client().pipeline(transaction=False)
        names = {pk: f"Ann Student {pk}" for pk in range(1, size + 1)}
        for pk, name in names.items():
            pipe.hset(school_keys.doc("student", pk), "name", name)
        for key, members in index.members_by_set(names.items()).items():
            pipe.sadd(key, *members)
        pipe.execute()
        self.assertEqual(raw_client().object("encoding", school_keys.ngram("student", "ann")), b"intset")
        with commands_logged() as commands:
            hits = index.search("ann", limit=size, cap=size)
        self.assertEqual(sorted(int(pk) for pk, _ in hits.items), list(range(1, size + 1)))
        self.assertEqual({name for _, name in hits.items}, set(names.values()))
        (counted,) = per_script(commands)
        self.assertEqual(counted[b"HGET"], ngrams.SAMPLE_SLICE)  # was the whole set's 500 in one command
        self.assertEqual(sum(1 for words in commands if words[0] == b"HGET"), size)


class SortedSearchListTest(RedisTestCase):
    def test_a_searched_list_sorted_by_title_reads_a_field_a_command_at_any_size(self):
        # A search's matches sorted by a field: each post's field is a command of its own and the sort is the
        # app's, where SORT … BY (or a script) read and sorted a thousand posts in one command.
        from cms.documents import title_member

        for size in (300, 900):
            with self.subTest(size=size):
                raw_client().flushdb()
                pipe = raw_client().pipeline(transaction=False)
                titles = {pk: f"Post {pk * 7919 % size:05d}" for pk in range(1, size + 1)}
                for pk, title in titles.items():
                    pipe.hset(cms_keys.post(pk), mapping={"title": title, "title_member": title_member(pk, title),
                                                          "author": "ann", "status": "draft"})  # fmt: skip
                pipe.zadd(cms_keys.by_updated(), {str(pk): pk for pk in titles})
                for key, members in cms.TITLES.members_by_set((str(pk), t) for pk, t in titles.items()).items():
                    pipe.sadd(key, *members)
                pipe.execute()
                with commands_logged() as commands:
                    items, total, capped = cms.list_posts(ListState(q="post", order="-title", page=2))
                self.assertEqual((total, capped), (size, False))
                self.assertEqual([item.title for item in items], sorted(titles.values(), reverse=True)[25:50])
                names = [words[0] for words in commands]
                self.assertNotIn(b"SORT", names)
                self.assertEqual(names.count(b"HGET"), size)  # a command a post,
                self.assertFalse([run for run in per_script(commands) if run.get(b"HGET")])  # none of them a script's
                ranges = [int(words[3]) - int(words[2]) + 1 for words in commands if words[0] == b"ZRANGE"]
                self.assertLessEqual(max(ranges), cms.SORT_LIMIT + 1)
