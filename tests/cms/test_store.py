"""The CMS store: revisions written with the post, no lost updates, the cap, revert, the list."""

import json
import threading

from django.test import override_settings, tag

from cms import keys, store
from cms.documents import SUMMARY, PostSummary
from config.activity import Actor
from config.listing import ListState
from config.redis import client
from config.store.ngramtext import Query
from tests.base import RedisTestCase, run_concurrently

T0 = 1_767_600_000.0


def content(**changes):
    return {"title": "Hello world", "body": "The first body.", "author": "ann", "status": "draft", **changes}


def make(**changes):
    return store.create_post(content(**changes), actor=Actor("ann"), comment="", at=T0)


def save(post_id, base, at=T0 + 60, by="bob", comment="", old_title=None, **changes):
    return store.save_post(
        post_id, content(**changes), base_version=base, actor=Actor(by), comment=comment, at=at, old_title=old_title
    )


def revisions(post_id):
    return [(json.loads(m), int(s)) for m, s in client().zrange(keys.revisions(post_id), 0, -1, withscores=True)]


@tag("cluster")
class PostWriteTest(RedisTestCase):
    sign_in = False

    def test_create_writes_the_post_with_the_comment_fields_and_its_indexes(self):
        post = make()
        stored = client().hgetall(keys.post(post.id))
        self.assertEqual(stored["title"], "Hello world")
        self.assertEqual(stored["version"], "1")
        self.assertEqual(stored["last_saved_by"], "ann")
        self.assertEqual(stored["recent_comments"], "[]")
        self.assertEqual(stored["num_comments"], "0")
        self.assertEqual(client().zscore(keys.by_updated(), str(post.id)), T0)
        self.assertEqual(client().zscore(keys.by_status("draft"), str(post.id)), T0)
        self.assertEqual(client().zscore(keys.by_author("ann"), str(post.id)), T0)
        self.assertIsNotNone(client().zscore(keys.titles(), f"hello world\x00{post.id}"))
        self.assertEqual(client().xlen("core:{cms}:events"), 1)

    def test_a_save_writes_the_new_version_and_its_revision_in_one_round_trip(self):
        post = make()
        with self.assertRoundTrips(1) as trace, self.assertCommands(1):  # one EVALSHA: no WATCH, no read first
            saved = save(post.id, 1, title="Hello there", comment="better title", old_title="Hello world")
        (command,) = trace.trips()[-1].commands
        self.assertEqual(command.name, "EVALSHA")
        self.assertEqual(
            command.keys,
            (
                keys.post(post.id), keys.revisions(post.id), keys.by_updated(), keys.titles(),
                keys.by_status("draft"), keys.by_status("published"), keys.by_author("ann"), keys.by_author("ann"),
                "core:{cms}:events", keys.authors(),
                *(keys.ngram(g) for g in ("d", "ld", "or", "orl", "rl", "rld", "w", "wo", "wor")),
                *(keys.ngram(g) for g in ("er", "ere", "her", "re", "t", "th", "the")),  # those "there" joins
            ),
        )  # fmt: skip
        self.assertEqual(saved.version, 2)
        stored = client().hgetall(keys.post(post.id))
        self.assertEqual((stored["title"], stored["version"], stored["last_saved_by"]), ("Hello there", "2", "bob"))
        self.assertEqual((stored["comment"], stored["changed"]), ("better title", "title"))
        ((snapshot, number),) = revisions(post.id)
        self.assertEqual(number, 1)
        was = (snapshot["title"], snapshot["version"], snapshot["last_saved_by"])
        self.assertEqual(was, ("Hello world", "1", "ann"))
        self.assertNotIn("recent_comments", snapshot)
        self.assertNotIn("num_comments", snapshot)

    def test_a_save_that_changes_nothing_writes_nothing(self):
        post = make()
        before = client().hgetall(keys.post(post.id))
        self.assertIsNone(save(post.id, 1, comment="just a comment"))
        self.assertEqual(client().hgetall(keys.post(post.id)), before)
        self.assertFalse(client().exists(keys.revisions(post.id)))
        self.assertEqual(client().xlen("core:{cms}:events"), 1)

    def test_a_save_over_a_newer_version_is_refused_and_writes_nothing(self):
        post = make()
        save(post.id, 1, by="bob", body="Bob's body.", comment="bob's edit")
        before = client().hgetall(keys.post(post.id))
        with self.assertRaises(store.EditConflict) as raised:
            save(post.id, 1, by="cat", title="Cat's title")
        between = raised.exception.between
        self.assertEqual((between.base, between.current.version), (1, 2))
        self.assertEqual(between.changed, ("body",))
        self.assertEqual([(s.number, s.by, s.comment) for s in between.saves], [(2, "bob", "bob's edit")])
        self.assertEqual(client().hgetall(keys.post(post.id)), before)
        self.assertEqual(len(revisions(post.id)), 1)

    def test_two_editors_racing_on_the_same_version_one_wins_and_the_other_is_refused(self):
        post = make()
        barrier = threading.Barrier(6)
        outcomes = []

        def editor(n):
            barrier.wait()
            try:
                saved = save(post.id, 1, by=f"editor{n}", body=f"Body by editor {n}.")
                outcomes.append(("saved", saved.last_saved_by))
            except store.EditConflict as conflict:
                outcomes.append(("refused", conflict.between.current.last_saved_by))

        run_concurrently(editor, [(n,) for n in range(6)])
        winners = [who for what, who in outcomes if what == "saved"]
        self.assertEqual(len(winners), 1, outcomes)
        self.assertEqual({who for what, who in outcomes if what == "refused"}, set(winners))
        stored = client().hgetall(keys.post(post.id))
        self.assertEqual(stored["version"], "2")
        self.assertEqual(stored["body"], f"Body by editor {winners[0].removeprefix('editor')}.")
        self.assertEqual([n for _, n in revisions(post.id)], [1])

    def test_the_cap_trims_the_oldest_revisions_in_the_same_transaction(self):
        post = make()
        with override_settings(CMS_REVISIONS_KEPT=3):
            for n in range(1, 7):
                save(post.id, n, at=T0 + n, body=f"Body {n}.")
        self.assertEqual([n for _, n in revisions(post.id)], [4, 5, 6])
        self.assertEqual(client().hget(keys.post(post.id), "version"), "7")

    def test_without_a_cap_every_revision_is_kept(self):
        post = make()
        for n in range(1, 7):
            save(post.id, n, at=T0 + n, body=f"Body {n}.")
        self.assertEqual([n for _, n in revisions(post.id)], [1, 2, 3, 4, 5, 6])

    def test_revert_saves_the_old_content_as_a_new_version(self):
        post = make()
        save(post.id, 1, at=T0 + 1, title="Second title", body="Second body.")
        save(post.id, 2, at=T0 + 2, title="Third title", status="published")
        reverted = store.revert_post(post.id, 1, actor=Actor("cat"), at=T0 + 3)
        self.assertEqual(reverted.version, 4)
        self.assertEqual(client().xrevrange("core:{cms}:events", count=1)[0][1]["label"], "Hello world")
        stored = client().hgetall(keys.post(post.id))
        now = (stored["title"], stored["body"], stored["status"])
        self.assertEqual(now, ("Hello world", "The first body.", "draft"))
        self.assertEqual(stored["comment"], "Reverted to revision 1")
        self.assertEqual(stored["last_saved_by"], "cat")
        self.assertEqual([n for _, n in revisions(post.id)], [1, 2, 3])
        self.assertEqual(revisions(post.id)[2][0]["title"], "Third title")
        self.assertIsNone(client().zscore(keys.by_status("published"), str(post.id)))
        self.assertIsNotNone(client().zscore(keys.by_status("draft"), str(post.id)))

    def test_revert_to_a_missing_revision_is_not_found(self):
        post = make()
        with self.assertRaises(store.NotFound):
            store.revert_post(post.id, 1, actor=Actor("cat"), at=T0)

    def test_a_save_moves_the_post_between_indexes(self):
        post = make()
        save(post.id, 1, title="Other", author="bob", status="published", at=T0 + 5)
        member = str(post.id)
        self.assertIsNone(client().zscore(keys.by_status("draft"), member))
        self.assertIsNone(client().zscore(keys.by_author("ann"), member))
        self.assertEqual(client().zscore(keys.by_author("bob"), member), T0 + 5)
        self.assertEqual(client().zrange(keys.titles(), 0, -1), [f"other\x00{post.id}"])

    def test_delete_removes_the_post_and_every_reference_to_it(self):
        post = make()
        save(post.id, 1, body="changed")
        for n in range(5):
            store.add_comment(post.id, author="cat", text=f"c{n}", at=T0 + n, actor=Actor("tester"))
        store.delete_post(post.id, actor=Actor("ann"))
        left = sorted(k for k in client().scan_iter("cms:*"))
        self.assertEqual(left, ["cms:{cms}:ids:comment", "cms:{cms}:ids:post"])


@tag("cluster")
class PostListTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        rows = [
            ("Redis streams", "ann", "published"),
            ("Redis sorted sets", "bob", "draft"),
            ("Hashes in depth", "ann", "draft"),
            ("redis at scale", "ann", "draft"),
            ("Über Redis", "bob", "published"),
        ]
        self.ids = {}
        for n, (title, author, status) in enumerate(rows):
            post = store.create_post(
                content(title=title, author=author, status=status), actor=Actor(author), comment="", at=T0 + n
            )
            self.ids[title] = post.id

    def titles(self, **state):
        query = Query.parse(state.get("q", ""))
        # the n-gram index first, then the page; one piece of three letters is a filter
        searched = query.usable and not store.TITLES.matches_set(query)
        authored = bool(state.get("filters", {}).get("author"))  # the authors the filter means, first
        with self.assertRoundTrips(1 + searched + authored) as trace:
            items, total, _ = store.list_posts(ListState(**state))
        self.trace = trace
        return [item.title for item in items], total

    def test_newest_first_by_default_and_oldest_first_on_request(self):
        self.assertEqual(self.titles(order="-updated")[0][0], "Über Redis")
        self.assertEqual(self.titles(order="updated")[0][0], "Redis streams")

    def test_reads_only_summary_fields(self):
        self.titles(order="-updated")
        self.assertEqual([c.name for c in self.trace.trips()[0].commands], ["ZCARD", "EVAL"])
        self.assertEqual(self.trace.touched_keys(), [keys.by_updated()])  # no post hash read whole, no revision
        self.assertNotIn("body", SUMMARY)
        items, *_ = store.list_posts(ListState(order="-updated"))
        self.assertIsInstance(items[0], PostSummary)
        self.assertFalse(hasattr(items[0], "body"))

    def test_title_search_finds_any_part_in_any_case_sorted_by_updated(self):
        found, total = self.titles(q="redis", order="-updated")
        self.assertEqual(found, ["Über Redis", "redis at scale", "Redis sorted sets", "Redis streams"])
        self.assertEqual(total, 4)
        self.assertEqual(self.titles(q="SORTED")[0], ["Redis sorted sets"])
        self.assertEqual(self.titles(q="uber")[0], ["Über Redis"])  # accents folded
        holding = ["Über Redis", "redis at scale", "Redis sorted sets", "Redis streams"]
        self.assertEqual(self.titles(q="re", order="-updated")[0], holding)
        self.assertEqual(self.titles(q="re")[1], 4)  # one or two letters: anywhere in the title (its piece's set)
        self.assertEqual(self.titles(q="über")[0], ["Über Redis"])
        with self.assertRoundTrips(1):  # no title holds the pieces: no page to read
            self.assertEqual(store.list_posts(ListState(q="zzz")), ([], 0, False))

    def test_filters_by_status_and_author_alone_and_together(self):
        published = self.titles(filters={"status": "published"}, order="updated")
        self.assertEqual(published, (["Redis streams", "Über Redis"], 2))
        by_bob = self.titles(filters={"author": "bob"}, order="updated")
        self.assertEqual(by_bob, (["Redis sorted sets", "Über Redis"], 2))
        both = self.titles(filters={"author": "ann", "status": "draft"}, order="updated")
        self.assertEqual(both, (["Hashes in depth", "redis at scale"], 2))
        search = self.titles(q="redis", filters={"author": "ann", "status": "draft"})
        self.assertEqual(search, (["redis at scale"], 1))

    def test_no_scratch_key_is_left_behind(self):
        self.titles(q="r", filters={"author": "ann", "status": "draft"})
        self.titles(filters={"author": "ann", "status": "draft"})
        self.assertEqual(list(client().scan_iter("cms:{cms}:tmp:*")), [])

    def test_pages_over_the_index(self):
        found, total = self.titles(order="updated", page=2, per_page=2)
        self.assertEqual((found, total), (["Hashes in depth", "redis at scale"], 5))
