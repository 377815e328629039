"""Finding posts: the title trigram index (writes, reads, drift, races, growth), and "Save and add another" /
"Save and continue editing"."""

import io
import random
from unittest import mock

from django.core.management import call_command
from django.test import tag

from cms import keys, store
from cms.documents import Post
from cms.store import posts, scripts
from cms.store.listing import SEARCH_LIMIT
from config.activity import Actor
from config.listing import ListState
from config.redis import client
from config.store import EditConflict
from config.store.ngramtext import all_grams
from tests.base import RedisTestCase, run_concurrently
from tests.cms.test_integrity import messages

T0 = 1_767_600_000.0
ANN = Actor("ann")
TRIGRAMS = "the title trigram index holds each post under exactly the pieces of its title: "


def content(**changes):
    return {"title": "Hello world", "body": "Body.", "author": "ann", "status": "draft", **changes}


def make(title, at=T0, **changes):
    return store.create_post(content(title=title, **changes), actor=ANN, comment="", at=at)


def holders(gram):
    return client().smembers(keys.ngram(gram))


def gram_keys():
    return sorted(client().scan_iter(match=keys.ngram("*")))


def repair():
    call_command("check_integrity", "--only", "cms", "--repair", stdout=io.StringIO())


class TitleTrigramWriteTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        scripts.load_scripts()

    def test_create_save_restore_and_delete_keep_the_trigrams_of_the_title(self):
        post = make("Redis streams")
        self.assertEqual(gram_keys(), sorted(keys.ngram(g) for g in all_grams("Redis streams")))
        with self.assertRoundTrips(1), self.assertCommands(1):  # still one script, the old title known
            store.save_post(
                post.id, content(title="Redis hashes"), base_version=1, actor=ANN, comment="", at=T0 + 1,
                old_title="Redis streams",
            )  # fmt: skip
        self.assertEqual(holders("str"), set())  # only in the old title: gone
        self.assertEqual(holders("has"), {str(post.id)})
        self.assertEqual(holders("red"), {str(post.id)})  # in both: kept
        with self.assertRoundTrips(1), self.assertCommands(1):
            store.revert_post(post.id, 1, actor=ANN, at=T0 + 2, author="ann", titles=("Redis hashes", "Redis streams"))
        self.assertEqual(holders("str"), {str(post.id)})
        self.assertEqual(holders("has"), set())
        store.delete_post(post.id, actor=ANN)
        self.assertEqual(gram_keys(), [])
        self.assertEqual(messages(), [])

    def test_a_wrong_guess_of_the_old_title_is_answered_stale_and_the_second_call_is_exact(self):
        post = make("Redis streams")
        with self.assertRoundTrips(2):  # the old title not given and changed: the script says which it holds
            store.save_post(post.id, content(title="Lua scripts"), base_version=1, actor=ANN, comment="", at=T0 + 1)
        with self.assertRoundTrips(2):  # a restore without the titles learns them the same way
            store.revert_post(post.id, 1, actor=ANN, at=T0 + 2, author="ann")
        self.assertEqual(store.get_post(post.id).post.title, "Redis streams")
        self.assertEqual(holders("lua"), set())
        self.assertEqual(messages(), [])

    def test_a_save_refuses_when_the_stored_title_changed_behind_the_store(self):
        post = make("Redis streams")
        client().hset(keys.post(post.id), "version", "2")  # a writer that bypassed the store
        with self.assertRaises(EditConflict):
            store.save_post(post.id, content(title="Renamed"), base_version=1, actor=ANN, comment="", at=T0 + 1)
        self.assertEqual(holders("ren"), set())  # nothing written

    def test_the_bulk_loader_indexes_titles_too(self):
        first = Post(7, "Pocket guide", "Body.", "ann", "draft", "ann", T0, T0)
        client().set(keys.post_ids(), 7)
        store.posts_write([[first]], actor=Actor("seed"))
        self.assertEqual(holders("poc"), {"7"})
        self.assertEqual(messages(), [])


@tag("cluster")
class TitleSearchTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.streams = make("Redis streams", at=T0)
        self.gramophone = make("Streaming the Phonograph", at=T0 + 1)  # holds "str", "ing" …
        self.cafe = make("Café modeling", at=T0 + 2, status="published")

    def test_a_search_is_one_round_trip_of_set_intersection_and_a_joined_page(self):
        with self.assertRoundTrips(1) as trace:
            found = store.search_titles("eams")
        self.assertEqual(found, [(str(self.streams.id), "Redis streams")])
        commands = trace.round_trips[0].commands
        self.assertEqual([c.name for c in commands], ["MULTI", "EVAL", "EXEC"])
        # the order index and the pieces' sets, intersected and ordered in one script, in bounded steps
        self.assertEqual(commands[1].keys[1:3], (keys.ngram("ams"), keys.ngram("eam")))
        wanted = commands[1].sent[3 + len(commands[1].keys)]  # the candidates read: the list's limit and one more
        self.assertEqual(int(wanted), SEARCH_LIMIT + 1)
        self.assertEqual(list(client().scan_iter(match="cms:{cms}:tmp:*")), [])

    def test_the_list_finds_any_part_of_a_title_in_two_round_trips_with_its_filters(self):
        def titles(q, **filters):
            return [p.title for p in store.list_posts(ListState(q=q, filters=filters))[0]]

        with self.assertRoundTrips(2) as trace:  # the trigram search, then the filtered page
            self.assertEqual(titles("STREAM"), ["Streaming the Phonograph", "Redis streams"])
        names = [c.name for c in trace.round_trips[1].commands]
        self.assertEqual(names, ["MULTI", "ZADD", "ZINTERSTORE", "ZCARD", "EVAL", "DEL", "EXEC"])
        self.assertEqual(titles("creme modeling"), [])
        self.assertEqual(titles("cafe"), ["Café modeling"])
        self.assertEqual(titles("stream", status="published"), [])
        self.assertEqual(titles("stream di"), ["Redis streams"])  # a short word: anywhere in the title
        self.assertEqual(list(client().scan_iter(match="cms:{cms}:tmp:*")), [])

    def test_a_word_of_three_letters_is_its_pieces_set_one_round_trip_uncapped_with_the_filters(self):
        def titles(q, **filters):
            with self.assertRoundTrips(1) as trace:  # no search first: the list intersects the piece's set
                posts = store.list_posts(ListState(q=q, filters=filters))
            return [p.title for p in posts[0]], posts[1], trace.round_trips[0].commands

        found, total, commands = titles("STR")
        self.assertEqual((found, total), (["Streaming the Phonograph", "Redis streams"], 2))
        self.assertEqual([c.name for c in commands], ["MULTI", "ZINTERSTORE", "ZCARD", "EVAL", "DEL", "EXEC"])
        self.assertIn(keys.ngram("str"), commands[1].keys)
        self.assertEqual(titles("mod", status="published")[:2], (["Café modeling"], 1))
        self.assertEqual(titles("mod", status="draft")[:2], ([], 0))
        self.assertEqual(list(client().scan_iter(match="cms:{cms}:tmp:*")), [])

    def test_a_search_with_more_matches_than_the_list_holds_says_so(self):
        with mock.patch("cms.store.listing.SEARCH_LIMIT", 1), mock.patch("cms.store.SEARCH_LIMIT", 1):
            capped = self.client.get("/cms/posts/?q=stream").content.decode()
        self.assertIn('id="capped-hint"', capped)
        self.assertIn("More than 1 titles match “stream”", capped)
        self.assertEqual(capped.count('name="ids"'), 1)
        whole = self.client.get("/cms/posts/?q=stream").content.decode()
        self.assertNotIn('id="capped-hint"', whole)
        self.assertEqual(whole.count('name="ids"'), 2)

    def test_the_list_screen_searches_titles_anywhere(self):
        response = self.client.get("/cms/posts/?q=phono")
        self.assertContains(response, "Streaming the Phonograph")
        self.assertNotContains(response, "Redis streams")


class GrowthTest(RedisTestCase):
    """The search's work follows its rarest trigram, not the number of posts: counted at two sizes."""

    sign_in = False

    def fill(self, count, start):
        histories = [
            [Post(start + n, f"Honey stone {start + n}", "Body.", "ann", "draft", "ann", T0, T0)]
            for n in range(1, count + 1)
        ]
        client().set(keys.post_ids(), start + count)
        store.posts_write(histories, actor=Actor("seed"))

    def measure(self):
        with self.assertRoundTrips(1) as trace:
            found = store.search_titles("phone", limit=8)
        smallest = min(client().scard(keys.ngram(g)) for g in ("pho", "hon", "one"))
        return found, [str(c) for c in trace.round_trips[0].commands if "tmp" not in str(c)], smallest

    def test_ten_times_the_posts_sharing_two_of_three_trigrams_cost_the_search_nothing_more(self):
        for n in range(3):
            make(f"Smartphone {n}")
        self.fill(100, 1000)
        small = self.measure()
        self.fill(900, 2000)
        self.assertEqual(client().scard(keys.ngram("hon")), 1003)  # the common pieces grew tenfold
        large = self.measure()
        self.assertEqual(len(small[0]), 3)
        self.assertEqual(small[0], large[0])
        self.assertEqual((small[2], large[2]), (3, 3), "the smallest set Redis walks stays the three phones")
        self.assertEqual(small[1], large[1])  # the same commands: nothing reads more as the posts grow


class TitleTrigramIntegrityTest(RedisTestCase):
    sign_in = False

    def test_a_planted_drift_is_caught_and_repaired(self):
        post = make("Redis streams")
        other = make("Honey stone")
        client().srem(keys.ngram("red"), str(post.id))
        client().sadd(keys.ngram("zzz"), str(other.id))
        client().sadd(keys.ngram("abc"), "999")  # a post that does not exist
        found = messages()
        self.assertIn(
            TRIGRAMS + f"post {post.id}: its title's pieces ['red'] do not list it",
            found,
        )
        self.assertIn(
            TRIGRAMS + f"post {other.id} is listed under ['zzz'], which its title does not hold",
            found,
        )
        self.assertIn(
            TRIGRAMS + "post 999 is listed under ['abc'], which its title does not hold",
            found,
        )
        repair()
        self.assertEqual(messages(), [])
        self.assertEqual(holders("red"), {str(post.id)})
        self.assertFalse(client().exists(keys.ngram("zzz"), keys.ngram("abc")))

    def test_renames_racing_leave_the_index_exact(self):
        ids = [make(f"Racer {n}").id for n in range(3)]
        words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"]

        def worker(seed):
            rng = random.Random(seed)
            for step in range(12):
                post_id = rng.choice(ids)
                for _ in range(500):  # bounded: a test never spins forever
                    current = store.get_post(post_id).post
                    title = f"{rng.choice(words)} {rng.choice(words)} {seed}"
                    try:
                        store.save_post(
                            post_id, {**current.content(), "title": title}, base_version=current.version,
                            actor=ANN, comment="", at=T0 + step, old_title=current.title,
                        )  # fmt: skip
                        break
                    except EditConflict:
                        continue

        run_concurrently(worker, [(n,) for n in range(6)])
        self.assertEqual(messages(), [])
        held = {key.rsplit(":", 1)[1] for key in gram_keys()}
        self.assertEqual(held, set().union(*(all_grams(store.get_post(i).post.title) for i in ids)))


class SaveAndTest(RedisTestCase):
    POST = {"title": "Fresh post", "body": "Body.", "author": "ann", "status": "draft", "comment": ""}

    def test_save_and_add_another_opens_a_new_form(self):
        response = self.client.post("/cms/posts/add/", {**self.POST, "_addanother": "1"}, follow=True)
        self.assertEqual(response.redirect_chain[-1][0], "/cms/posts/add/")
        self.assertContains(response, "Post “Fresh post” was created at version 1. You may add another below.")
        self.assertContains(response, "Save and continue editing")

    def test_save_and_continue_editing_comes_back_to_the_edit_form(self):
        post = make("Fresh post")
        scripts.load_scripts()
        edit = {**self.POST, "title": "Fresher post", "version": "1", "loaded_title": "Fresh post", "_continue": "1"}
        with self.assertRoundTrips(2):  # the save's one script, then the edit form's read
            response = self.client.post(f"/cms/posts/{post.id}/edit/", edit, follow=True)
        self.assertEqual(response.redirect_chain[-1][0], f"/cms/posts/{post.id}/edit/")
        self.assertContains(response, "Saved “Fresher post” as version 2; version 1 is in the history.")
        self.assertContains(response, 'name="loaded_title" value="Fresher post"')
        self.assertEqual(holders("fre"), {str(post.id)})
        self.assertEqual(messages(), [])


class BulkDeleteTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        scripts.load_scripts()
        self.a = make("Alpha post").id
        self.b = make("Beta <post>").id
        self.c = make("Gamma post").id
        store.add_comment(self.a, author="cat", text="hi", at=T0, actor=ANN)

    def test_ticked_rows_are_listed_and_nothing_is_deleted_until_confirmed(self):
        response = self.client.post("/cms/posts/delete/", {"ids": [self.a, self.b, "x", self.a, 12345]})
        self.assertContains(response, "Delete 2 posts?")
        self.assertContains(response, "Beta &lt;post&gt;")
        self.assertContains(response, "1 of the selected posts no longer exists")
        self.assertContains(response, f'<input type="hidden" name="ids" value="{self.a}">', html=True)
        self.assertEqual(client().exists(keys.post(self.a), keys.post(self.b)), 2)

    def test_confirming_deletes_them_in_one_transaction_and_names_them(self):
        with self.assertRoundTrips(2) as trace:  # every post's fields and comment ids, then one MULTI/EXEC
            response = self.client.post("/cms/posts/delete/", {"ids": [self.a, self.b], "confirm": "yes"})
        sent = [c.name for c in trace.trips("data")[1].commands]
        self.assertEqual(sent, ["MULTI", "EVAL", "EVAL", "EXEC"])  # both deletes in one transaction
        response = self.client.get(response["Location"])
        self.assertContains(
            response, "Deleted 2 posts with their revisions and comments: “Alpha post”, “Beta &lt;post&gt;”."
        )
        self.assertFalse(client().exists(keys.post(self.a), keys.post(self.b)))
        self.assertTrue(client().exists(keys.post(self.c)))
        self.assertEqual(holders("alp"), set())
        self.assertEqual(messages(), [])

    def test_a_post_that_changed_in_between_is_read_again_and_deleted(self):
        real, calls = posts.queue_script, []

        def comment_first(pipe, source, script_keys, args, **kwargs):  # a comment lands after the read, once
            calls.append(1)
            if len(calls) == 1:
                store.add_comment(self.a, author="cat", text="meanwhile", at=T0 + 1, actor=ANN)
            return real(pipe, source, script_keys, args, **kwargs)

        with mock.patch.object(posts, "queue_script", comment_first):
            deleted, gone = store.delete_posts([self.a, self.b, 999], actor=ANN)
        self.assertEqual(sorted(post.id for post in deleted), sorted([self.a, self.b]))
        self.assertEqual(gone, 1)
        self.assertEqual(len(calls), 3)  # both deletes, then the one whose comments changed, again
        self.assertFalse(client().exists(keys.post(self.a), keys.post(self.b), keys.post_comments(self.a)))
        self.assertEqual(messages(), [])

    def test_nothing_ticked_says_so_a_get_is_refused_and_the_list_offers_checkboxes(self):
        response = self.client.post("/cms/posts/delete/", {}, follow=True)
        self.assertContains(response, "Tick the posts to delete first; nothing was deleted.")
        self.assertRedirects(self.client.get("/cms/posts/delete/"), "/cms/posts/")  # deletes nothing
        response = self.client.get("/cms/posts/")
        self.assertContains(response, f'name="ids" value="{self.a}"')
        self.assertContains(response, 'action="/cms/posts/delete/"')
