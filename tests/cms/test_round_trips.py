"""Every CMS write and screen, by its exact round trips and commands (never by time).

A write whose keys are known in advance is one server-side script (EVALSHA);
where an id must be drawn, or the keys to delete must be read, two. The
scripts are loaded first, as a running server has them after its first write.
"""

from unittest import mock

from cms import keys, store
from cms.documents import HistoryRow, Post
from cms.store import comments, posts, scripts
from config.activity import Actor
from config.invariants import violations
from config.redis import client
from config.store.bulk import BULK
from config.store.ngramtext import all_grams
from tests.base import RedisTestCase, command_stats

T0 = 1_767_600_000.0
ANN = Actor("ann")


def content(**changes):
    return {"title": "Hello world", "body": "The first body.", "author": "ann", "status": "draft", **changes}


def names(trace) -> list[list[str]]:
    return [[command.name for command in trip.commands] for trip in trace.trips("data")]


class WriteTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        scripts.load_scripts()

    def make(self, **changes) -> Post:
        return store.create_post(content(**changes), actor=ANN, comment="", at=T0)

    def test_create_draws_an_id_then_writes_in_one_transaction(self):
        with self.assertRoundTrips(2) as trace:
            post = self.make()
        pieces = len(all_grams("Hello world"))  # a SADD a piece of one to three characters
        written = ["MULTI", "HSET", "ZADD", "ZADD", "ZADD", "ZADD", "ZADD", *["SADD"] * pieces, "XADD", "EXEC"]
        self.assertEqual(names(trace), [["INCRBY"], written])
        self.assertEqual(client().hget(keys.post(post.id), "title_member"), f"hello world\x00{post.id}")

    def test_an_edit_that_keeps_its_author_is_one_script(self):
        post = self.make()
        with self.assertRoundTrips(1) as trace:
            saved = store.save_post(
                post.id, content(title="Other"), base_version=1, actor=ANN, comment="", at=T0 + 1,
                old_title="Hello world",
            )  # fmt: skip
        self.assertEqual(names(trace), [["EVALSHA"]])
        self.assertEqual(saved.version, 2)
        self.assertEqual(client().zrange(keys.titles(), 0, -1), [f"other\x00{post.id}"])

    def test_an_edit_that_changes_the_author_takes_a_second_call_with_the_old_authors_index(self):
        post = self.make()
        with self.assertRoundTrips(2) as trace:
            store.save_post(post.id, content(author="bob"), base_version=1, actor=ANN, comment="", at=T0 + 1)
        self.assertEqual(names(trace), [["EVALSHA"], ["EVALSHA"]])
        first, second = (trip.commands[0] for trip in trace.trips("data"))
        self.assertEqual(first.keys[6:8], (keys.by_author("bob"), keys.by_author("bob")))  # the guess: wrote nothing
        self.assertEqual(second.keys[6:8], (keys.by_author("ann"), keys.by_author("bob")))
        self.assertFalse(client().exists(keys.by_author("ann")))
        self.assertEqual(client().zscore(keys.by_author("bob"), str(post.id)), T0 + 1)
        self.assertEqual(client().zcard(keys.revisions(post.id)), 1)

    def test_an_edit_that_changes_the_author_loaded_with_the_form_is_one_script(self):
        post = self.make()
        with self.assertRoundTrips(1) as trace:
            store.save_post(
                post.id, content(author="bob"), base_version=1, actor=ANN, comment="", at=T0 + 1,
                old_title="Hello world", old_author="ann",
            )  # fmt: skip
        self.assertEqual(names(trace), [["EVALSHA"]])
        self.assertEqual(trace.trips("data")[0].commands[0].keys[6:8], (keys.by_author("ann"), keys.by_author("bob")))
        self.assertFalse(client().exists(keys.by_author("ann")))
        self.assertEqual(client().zscore(keys.by_author("bob"), str(post.id)), T0 + 1)

    def test_a_stale_edit_is_refused_by_the_script_with_what_changed_in_one_round_trip(self):
        post = self.make()
        store.save_post(post.id, content(body="Bob's."), base_version=1, actor=Actor("bob"), comment="b", at=T0 + 1)
        before = client().hgetall(keys.post(post.id))
        with self.assertRoundTrips(1), self.assertRaises(store.EditConflict) as raised:
            store.save_post(post.id, content(title="Mine"), base_version=1, actor=ANN, comment="", at=T0 + 2)
        between = raised.exception.between
        self.assertEqual((between.base, between.current.version, between.changed), (1, 2, ("body",)))
        self.assertEqual(between.base_snapshot.body, "The first body.")
        self.assertEqual(client().hgetall(keys.post(post.id)), before)

    def test_an_edit_that_changes_nothing_is_one_call_that_writes_nothing(self):
        post = self.make()
        with self.assertRoundTrips(1):
            self.assertIsNone(store.save_post(post.id, content(), base_version=1, actor=ANN, comment="", at=T0))
        self.assertEqual(client().xlen("core:{cms}:events"), 1)

    def test_a_restore_with_the_author_known_is_one_script_else_two(self):
        post = self.make()
        store.save_post(post.id, content(body="Second."), base_version=1, actor=ANN, comment="", at=T0 + 1)
        with self.assertRoundTrips(1):
            restored = store.revert_post(post.id, 1, actor=ANN, at=T0 + 2, author="ann", titles=("Hello world",) * 2)
        self.assertEqual((restored.version, restored.body), (3, "The first body."))
        with self.assertRoundTrips(2):
            restored = store.revert_post(post.id, 2, actor=ANN, at=T0 + 3)
        self.assertEqual((restored.version, restored.body), (4, "Second."))
        self.assertEqual(client().xrevrange("core:{cms}:events", count=1)[0][1]["label"], "Hello world")

    def test_delete_reads_the_comment_ids_then_deletes_everything_in_one_script(self):
        post = self.make()
        ids = [store.add_comment(post.id, author="cat", text=f"c{n}", at=T0 + n, actor=ANN) for n in range(3)]
        with self.assertRoundTrips(2) as trace:
            store.delete_post(post.id, actor=ANN)
        self.assertEqual(names(trace), [["HMGET", "ZRANGE"], ["EVALSHA"]])
        script = trace.trips("data")[1].commands[0]
        pieces = {keys.ngram(g) for g in all_grams("Hello world")}  # the title's piece sets
        self.assertEqual(script.keys[9], keys.authors())  # the author's last post: out of the authors index
        self.assertEqual(set(script.keys[10:]), pieces | {keys.comment(i) for i in ids})
        self.assertEqual(sorted(client().scan_iter("cms:*")), ["cms:{cms}:ids:comment", "cms:{cms}:ids:post"])

    def test_a_delete_that_meets_a_new_comment_reads_again_and_takes_it_along(self):
        post = self.make()
        store.add_comment(post.id, author="cat", text="first", at=T0, actor=ANN)
        real, calls = posts.run_script, []

        def comment_then_delete(source, run_keys, args):  # a comment lands between the read and the script
            if source == scripts.DELETE:
                if not calls:
                    store.add_comment(post.id, author="cat", text="meanwhile", at=T0 + 1, actor=ANN)
                calls.append(len(run_keys))
            return real(source, run_keys, args)

        with mock.patch.object(posts, "run_script", comment_then_delete):
            store.delete_post(post.id, actor=ANN)
        pieces = len(all_grams("Hello world"))
        # The first call saw 1 comment and wrote nothing; the second took 2.
        self.assertEqual(calls, [11 + pieces, 12 + pieces])
        self.assertEqual(sorted(client().scan_iter("cms:*")), ["cms:{cms}:ids:comment", "cms:{cms}:ids:post"])

    def test_posts_write_writes_a_batch_in_one_script(self):
        histories = []
        for post_id in (1, 2, 3):
            first = Post(post_id, f"Post {post_id}", "Body.", "ann", "draft", "ann", T0, T0)
            histories.append([first, first.saved({**first.content(), "body": "New."}, "bob", "", T0 + 1)])
        client().script_load(BULK)  # as a running server has it after its first bulk write
        before = ran()
        with self.assertRoundTrips(1) as trace:
            commands = store.posts_write(histories, actor=Actor("seed"))
        self.assertIn(names(trace), ([["EVAL"]], [["EVALSHA"]]))
        # Per post an HSET and a ZADD of its revisions; one ZADD per index (updated, title, draft, ann, authors);
        # one SADD per title piece (p, o, s, t, po, os, st, pos, ost, and the digits 1, 2, 3); one event.
        self.assertEqual(commands, 24)
        after = ran()
        self.assertEqual(
            {name: after[name] - before.get(name, 0) for name in ("hset", "zadd", "sadd", "xadd")},
            {"hset": 3, "zadd": 3 + 5, "sadd": 12, "xadd": 1},
        )
        self.assertEqual(client().zcard(keys.by_updated()), 3)
        self.assertEqual(client().xrevrange("core:{cms}:events")[0][1]["label"], "Post 1 and 2 more posts")


def ran() -> dict[str, int]:
    """Calls of each command the server has run (INFO commandstats), a script's own included."""
    return {name.removeprefix("cmdstat_"): int(stats["calls"]) for name, stats in command_stats().items()}


class CommentAddTest(RedisTestCase):
    """A comment is one script: its id from the process's block, the post's title in the reply."""

    def setUp(self):
        super().setUp()
        self.post = store.create_post(content(), actor=ANN, comment="", at=T0)
        store.draw_comment_ids()  # as a running server has its block after its first comment
        store.add_comment(self.post.id, author="cat", text="first", at=T0, actor=ANN)  # the script is loaded

    def test_adding_a_comment_from_the_screen_is_one_script(self):
        with self.assertRoundTrips(1) as trace:
            response = self.client.post(f"/cms/posts/{self.post.id}/comments/add/", {"text": "Nice"})
        self.assertRedirects(response, f"/cms/posts/{self.post.id}/#comments", fetch_redirect_response=False)
        self.assertEqual(names(trace), [["EVALSHA"]])
        script = trace.trips("data")[0].commands[0]
        self.assertEqual(
            script.keys,
            (keys.post(self.post.id), keys.post_comments(self.post.id), keys.comment(2), keys.comment_ids(),
             "core:{cms}:events"),
        )  # fmt: skip
        self.assertEqual(client().zrevrange(keys.post_comments(self.post.id), 0, -1), ["2", "1"])
        page = self.client.get(f"/cms/posts/{self.post.id}/")
        self.assertContains(page, "Your comment on “Hello world” was added.")
        self.assertEqual(store.get_post(self.post.id).num_comments, 2)

    def test_the_block_draws_ids_once_for_many_comments(self):
        with self.assertRoundTrips(3) as trace:
            added = [store.add_named_comment(self.post.id, author="cat", text=f"c{n}", at=T0 + n, actor=ANN)
                     for n in range(3)]  # fmt: skip
        self.assertEqual(names(trace), [["EVALSHA"]] * 3)
        self.assertEqual(
            [(a.id, a.post_title) for a in added], [(2, "Hello world"), (3, "Hello world"), (4, "Hello world")]
        )
        self.assertEqual(client().get(keys.comment_ids()), "100")

    def test_a_forked_process_draws_a_block_of_its_own(self):
        comments._IDS.pid = -1  # what a gunicorn worker forked after the first draw sees: another pid
        with self.assertRoundTrips(2) as trace:
            comment_id = store.add_comment(self.post.id, author="cat", text="forked", at=T0, actor=ANN)
        self.assertEqual(names(trace), [["INCRBY"], ["EVALSHA"]])
        self.assertEqual(comment_id, 101)  # the parent keeps 2..100: no id is handed out twice

    def test_a_missing_post_writes_nothing_and_its_id_goes_to_the_next_comment(self):
        with self.assertRoundTrips(1), self.assertRaises(store.NotFound):
            store.add_comment(99, author="cat", text="lost", at=T0, actor=ANN)
        self.assertFalse(client().exists(keys.comment(2)))
        self.assertEqual(store.add_comment(self.post.id, author="cat", text="next", at=T0, actor=ANN), 2)

    def test_a_block_from_before_a_reset_is_refused_and_drawn_again(self):
        client().flushdb()  # the process still holds ids 2..100 of a counter that is gone
        post = store.create_post(content(), actor=ANN, comment="", at=T0)
        with self.assertRoundTrips(3) as trace:
            comment_id = store.add_comment(post.id, author="cat", text="again", at=T0, actor=ANN)
        self.assertEqual(names(trace), [["EVALSHA"], ["INCRBY"], ["EVALSHA"]])  # stale: nothing written; drawn; added
        self.assertEqual(comment_id, 1)
        self.assertEqual(client().zrange(keys.post_comments(post.id), 0, -1), ["1"])

    def test_an_id_a_comment_already_holds_is_refused_and_the_block_drawn_again(self):
        client().set(keys.comment_ids(), 150)  # an import wrote comments up to 150 meanwhile
        client().hset(keys.comment(2), mapping={"post": "7", "author": "x", "text": "imported", "at": "0"})
        comment_id = store.add_comment(self.post.id, author="cat", text="mine", at=T0, actor=ANN)
        self.assertEqual(comment_id, 151)
        self.assertEqual(client().hget(keys.comment(2), "text"), "imported")


class CommentDeleteTest(RedisTestCase):
    """Deleting a comment from the screen: one pipeline of reads, then the shared delete script."""

    def setUp(self):
        super().setUp()
        self.post = store.create_post(content(), actor=ANN, comment="", at=T0)
        self.ids = [
            store.add_comment(self.post.id, author=f"w{n}", text=f"c{n}", at=T0 + n, actor=ANN) for n in range(5)
        ]
        store.delete_comment(self.post.id, self.ids[0], actor=ANN)  # the delete script is loaded

    def test_deleting_a_comment_from_the_screen_is_two_round_trips(self):
        newest = self.ids[4]
        with self.assertRoundTrips(2) as trace:
            response = self.client.post(f"/cms/posts/{self.post.id}/comments/{newest}/delete/")
        self.assertRedirects(response, f"/cms/posts/{self.post.id}/#comments", fetch_redirect_response=False)
        self.assertEqual(names(trace), [["HGET", "HGETALL", "ZREVRANGE"], ["EVALSHA"]])
        self.assertFalse(client().exists(keys.comment(newest)))
        page = store.get_post(self.post.id)
        self.assertEqual(([c.id for c in page.recent_comments], page.num_comments), (self.ids[3:0:-1], 3))
        self.assertContains(
            self.client.get(f"/cms/posts/{self.post.id}/"), "The comment by w4 on “Hello world” was deleted."
        )

    def test_a_comment_of_another_post_is_not_found_and_nothing_is_written(self):
        other = store.create_post(content(title="Other"), actor=ANN, comment="", at=T0)
        with self.assertRoundTrips(1):
            response = self.client.post(f"/cms/posts/{other.id}/comments/{self.ids[1]}/delete/")
        self.assertEqual(response.status_code, 404)
        self.assertTrue(client().exists(keys.comment(self.ids[1])))

    def test_a_comment_added_between_the_read_and_the_script_makes_it_read_again(self):
        from config.store import children

        original, calls = children.run_script, []

        def comment_meanwhile(source, run_keys, args):
            calls.append(source)
            if len(calls) == 1:  # the first delete script: another editor comments just before it
                store.add_comment(self.post.id, author="late", text="late", at=T0 + 9, actor=ANN)
            return original(source, run_keys, args)

        with mock.patch.object(children, "run_script", comment_meanwhile), self.assertRoundTrips(5) as trace:
            title, comment = store.delete_named_comment(self.post.id, self.ids[2], actor=ANN)
        reads = ["HGET", "HGETALL", "ZREVRANGE"]
        # read; the late comment (its own script); the delete, refused as stale; read again; the delete
        self.assertEqual(names(trace), [reads, ["EVALSHA"], ["EVALSHA"], reads, ["EVALSHA"]])
        self.assertEqual((title, comment.author), ("Hello world", "w2"))
        page = store.get_post(self.post.id)
        self.assertEqual(page.num_comments, 4)
        self.assertEqual(page.recent_comments[0].text, "late")
        self.assertEqual([f"{inv.name}: {v.message}" for inv, v in violations(["cms"])], [])


class HistoryTest(RedisTestCase):
    sign_in = False

    def test_the_history_is_one_script_that_cuts_the_snapshots_to_the_rows_fields(self):
        scripts.load_scripts()
        post = store.create_post(content(), actor=ANN, comment="", at=T0)
        for version in range(1, 4):
            store.save_post(
                post.id, content(title=f"T{version}", body=f"body {version}"), base_version=version,
                actor=Actor("bob"), comment=f"c{version}", at=T0 + version,
            )  # fmt: skip
        with self.assertRoundTrips(1) as trace:
            current, revisions, total = store.history(post.id, 1, 2)
        self.assertEqual(names(trace), [["EVALSHA"]])
        self.assertEqual((current.version, current.title, current.last_saved_by, total), (4, "T3", "bob", 3))
        self.assertEqual(revisions, [  # no body: the page shows none
            HistoryRow(2, T0 + 1, "bob", "c1", ("title", "body"), "T1", "ann", "draft"),
            HistoryRow(1, T0, "ann", "Created", (), "Hello world", "ann", "draft"),
        ])  # fmt: skip

    def test_a_server_without_the_script_is_sent_it_once(self):
        post = store.create_post(content(), actor=ANN, comment="", at=T0)
        client().script_flush()  # a server restarted since: its script cache is empty
        with self.assertRoundTrips(3) as trace:
            store.history(post.id, 0, 10)
        self.assertEqual(names(trace), [["EVALSHA"], ["SCRIPT LOAD"], ["EVALSHA"]])
        with self.assertRoundTrips(1) as trace:
            store.history(post.id, 0, 10)
        self.assertEqual(names(trace), [["EVALSHA"]])
        scripts.load_scripts()  # the other scripts too, as before the flush

    def test_the_history_of_a_missing_post_is_not_found(self):
        with self.assertRaises(store.NotFound):
            store.history(99, 0, 10)


class ScreenTest(RedisTestCase):
    """Each screen: its round trips and the commands in them, exactly."""

    def test_every_screen(self):
        scripts.load_scripts()  # as a running server has them: EVALSHA, never a first EVAL
        post = store.create_post(content(), actor=ANN, comment="", at=T0)
        store.save_post(post.id, content(title="Two"), base_version=1, actor=ANN, comment="", at=T0 + 1)
        comment = store.add_comment(post.id, author="cat", text="hi", at=T0, actor=ANN)
        base = f"/cms/posts/{post.id}"
        screens = {
            "/cms/posts/": [["ZCARD", "EVAL"]],
            "/cms/posts/?status=draft": [["ZCARD", "EVAL"]],
            # the authors the filter means (in any case), then the page
            "/cms/posts/?status=draft&author=ann": [
                ["ZRANGEBYLEX"],
                ["MULTI", "ZINTERSTORE", "ZCARD", "EVAL", "DEL", "EXEC"],
            ],
            # a letter: searched in bounded steps (one script), never its piece's set intersected whole
            "/cms/posts/?q=t&status=draft&author=ANN": [
                ["ZRANGEBYLEX"],
                ["MULTI", "EVAL", "EXEC"],
                ["MULTI", "ZADD", "ZINTERSTORE", "ZCARD", "EVAL", "DEL", "EXEC"],
            ],
            "/cms/posts/add/": [],
            f"{base}/": [["HGETALL", "ZCARD"]],
            f"{base}/edit/": [["HGETALL", "ZCARD"]],
            f"{base}/delete/": [["HGETALL", "ZCARD"]],
            f"{base}/history/": [["EVALSHA"]],  # the HISTORY script
            f"{base}/compare/?a=1": [["HGETALL", "ZRANGEBYSCORE"]],
            f"{base}/compare/?a=1&b=2": [["HGETALL", "ZRANGEBYSCORE", "ZRANGEBYSCORE"]],
            f"{base}/compare/": [["HGETALL", "ZCARD"], ["HGETALL", "ZRANGEBYSCORE", "ZRANGEBYSCORE"]],
            f"{base}/comments/": [["HGET", "ZCARD", "EVAL"]],
            f"{base}/comments/{comment}/delete/": [["HGET", "HGETALL"]],
        }
        for path, expected in screens.items():
            with self.subTest(path=path), self.assertRoundTrips(len(expected)) as trace:
                self.assertEqual(self.client.get(path).status_code, 200)
            self.assertEqual(names(trace), expected, path)

    def test_an_edit_from_the_form_is_one_script_even_when_it_changes_the_author(self):
        post = store.create_post(content(), actor=ANN, comment="", at=T0)
        scripts.load_scripts()
        page = self.client.get(f"/cms/posts/{post.id}/edit/")
        self.assertContains(page, 'name="loaded_author" value="ann"')
        data = {**content(author="bob"), "version": "1", "loaded_title": "Hello world", "loaded_author": "ann"}
        with self.assertRoundTrips(1) as trace:
            response = self.client.post(f"/cms/posts/{post.id}/edit/", data)
        self.assertRedirects(response, f"/cms/posts/{post.id}/", fetch_redirect_response=False)
        self.assertEqual(names(trace), [["EVALSHA"]])
        self.assertEqual(client().hget(keys.post(post.id), "author"), "bob")
        self.assertFalse(client().exists(keys.by_author("ann")))
