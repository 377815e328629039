"""The post list as a staff user works it: every column sorts, bulk publish and unpublish, select-all."""

import io
import re

from django.core.management import call_command

from cms import keys, store
from config.activity import Actor
from config.invariants import violations
from config.redis import client
from tests.base import RedisTestCase, command_stats

T0 = 1_767_600_000.0


def make(title, author="ann", status="draft", at=T0):
    content = {"title": title, "body": "Body.", "author": author, "status": status}
    return store.create_post(content, actor=Actor(author), comment="", at=at)


def shown(response) -> list[str]:
    """The titles of the rows the page shows, in order."""
    return re.findall(
        r'<tr data-post="\d+">\s*<td[^>]*>.*?</td>\s*<td><a href="[^"]+">([^<]+)</a>', response.content.decode(), re.S
    )


def calls() -> dict[str, int]:
    return {name.removeprefix("cmdstat_"): int(stats["calls"]) for name, stats in command_stats().items()}


class SortTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        rows = [
            ("banana split", "Carl", "published"),
            ("Apple pie", "ann", "draft"),
            ("cherry tart", "bob", "published"),
        ]
        for n, (title, author, status) in enumerate(rows):
            make(title, author, status, at=T0 + n)

    def test_every_column_sorts_both_ways(self):
        self.assertEqual(shown(self.client.get("/cms/posts/?o=title")), ["Apple pie", "banana split", "cherry tart"])
        self.assertEqual(shown(self.client.get("/cms/posts/?o=-title")), ["cherry tart", "banana split", "Apple pie"])
        self.assertEqual(shown(self.client.get("/cms/posts/?o=author")), ["banana split", "Apple pie", "cherry tart"])
        by_status = shown(self.client.get("/cms/posts/?o=status"))  # drafts, then published newest first
        self.assertEqual(by_status, ["Apple pie", "cherry tart", "banana split"])
        self.assertEqual(shown(self.client.get("/cms/posts/?o=-status"))[0], "cherry tart")
        filtered = shown(self.client.get("/cms/posts/?o=title&status=published"))
        self.assertEqual(filtered, ["banana split", "cherry tart"])
        page = self.client.get("/cms/posts/?o=title").content.decode()
        self.assertIn('aria-sort="ascending"><a href="?o=-title"', page)  # the head says it, and toggles

    def test_a_sort_by_title_reads_one_page_whatever_the_number_of_posts(self):
        def work():
            before = calls()
            self.client.get("/cms/posts/?o=title&per=10")
            after = calls()
            return {name: after.get(name, 0) - before.get(name, 0) for name in ("zrange", "hmget", "hget", "sort")}

        for n in range(12):
            make(f"Entry {n:02}", at=T0 + 100 + n)
        small = work()
        for n in range(40):
            make(f"Post {n:02}", at=T0 + 10 + n)
        self.assertEqual(work(), small)  # the same commands, each reading one page: bounded
        self.assertEqual(small["zrange"], 1)

    def test_a_filtered_sort_past_the_limit_says_so_and_keeps_the_order_by_last_save(self):
        from unittest import mock

        with mock.patch("cms.store.listing.SORT_LIMIT", 1), mock.patch("cms.store.SORT_LIMIT", 1):
            response = self.client.get("/cms/posts/?o=author&status=published")
        self.assertContains(response, "More than 1 posts match: sorted by last save.")
        self.assertEqual(shown(response), ["cherry tart", "banana split"])


class BulkStatusTest(RedisTestCase):
    def test_publish_and_unpublish_selected_in_one_script_checked_by_the_invariants(self):
        posts = [make(f"Post {n}", at=T0 + n) for n in range(3)]
        ids = [str(p.id) for p in posts[:2]]
        page = self.client.get("/cms/posts/").content.decode()
        self.assertIn('data-select-all="ids"', page)
        self.assertIn("Publish selected", page)
        before = calls().get("evalsha", 0) + calls().get("eval", 0)
        response = self.client.post("/cms/posts/status/", {"ids": ids, "status": "published", "back": "?o=title"})
        self.assertEqual(calls().get("evalsha", 0) + calls().get("eval", 0) - before, 1)  # one script for both
        self.assertRedirects(response, "/cms/posts/?o=title", fetch_redirect_response=False)
        response = self.client.get(response.url)
        self.assertContains(response, "Published 2 posts: “Post 0”, “Post 1”.")
        published = client().zrange(keys.by_status("published"), 0, -1)
        self.assertEqual(sorted(published), sorted(ids))
        self.assertEqual(client().hget(keys.post(posts[0].id), "version"), "2")  # saved as a new version
        self.assertEqual(client().zcard(keys.revisions(posts[0].id)), 1)
        self.assertEqual(violations(["cms"]), [])
        again = self.client.post("/cms/posts/status/", {"ids": ids[:1], "status": "published"}, follow=True)
        self.assertContains(again, "1 of the selected posts were already published: left as they were.")
        back = self.client.post("/cms/posts/status/", {"ids": ids, "status": "draft"}, follow=True)
        self.assertContains(back, "Unpublished 2 posts")
        self.assertEqual(client().zcard(keys.by_status("published")), 0)
        self.assertEqual(violations(["cms"]), [])
        nothing = self.client.post("/cms/posts/status/", {"status": "published"}, follow=True)
        self.assertContains(nothing, "Tick the posts to change first; nothing was changed.")
        bad = self.client.post("/cms/posts/status/", {"ids": ids, "status": "secret"}, follow=True)
        self.assertContains(bad, "Choose Publish or Unpublish; nothing was changed.")
        self.assertEqual(client().zcard(keys.by_status("published")), 0)

    def test_a_get_of_the_bulk_action_is_not_a_write(self):
        self.assertRedirects(self.client.get("/cms/posts/status/"), "/cms/posts/", fetch_redirect_response=False)


class PagingTest(RedisTestCase):
    def test_numbered_elided_pages_a_size_choice_and_past_the_end_the_last_page(self):
        for n in range(60):
            make(f"Post {n:02}", at=T0 + n)
        page = self.client.get("/cms/posts/?per=10&page=3").content.decode()
        self.assertIn('aria-current="page" href="?o=-updated&amp;page=3&amp;per=10"', page)
        labels = re.findall(r'aria-label="Page (\d+)[^"]*"', page)
        self.assertEqual(labels, ["1", "2", "3", "4", "5", "6"])
        self.assertIn('<option value="10" selected>10</option>', page)
        self.assertEqual(len(shown(self.client.get("/cms/posts/?per=10"))), 10)
        self.assertEqual(len(shown(self.client.get("/cms/posts/?per=7"))), 25)  # not offered: the list's own
        past = self.client.get("/cms/posts/?per=10&page=41", follow=True)
        self.assertEqual(past.redirect_chain, [("/cms/posts/?per=10&page=6", 302)])  # the rest of the query kept
        self.assertContains(past, "Page 41 is past the end of the list: this is its last page, 6.")
        self.assertEqual(shown(past), [f"Post {n:02}" for n in range(9, -1, -1)])


class AuthorFilterTest(RedisTestCase):
    def test_the_author_filter_finds_its_author_in_any_case_and_by_the_start_of_the_name(self):
        make("By Ann", author="Ann")
        make("By Andrew", author="andrew")
        make("By Bob", author="bob")
        for typed, expected in (("ANN", ["By Ann"]), ("ann", ["By Ann"]), ("an", ["By Andrew", "By Ann"]),
                                ("BO", ["By Bob"]), ("zed", [])):  # fmt: skip
            with self.subTest(typed=typed):
                self.assertEqual(sorted(shown(self.client.get("/cms/posts/", {"author": typed}))), expected)
        self.assertEqual(shown(self.client.get("/cms/posts/", {"author": "an", "q": "andrew"})), ["By Andrew"])

    def test_the_authors_index_follows_the_writes_and_the_invariants_check_it(self):
        first = make("One", author="Ann")
        second = make("Two", author="Ann")
        self.assertEqual(client().zrange(keys.authors(), 0, -1), ["ann\x00Ann"])
        store.save_post(second.id, {"title": "Two", "body": "B.", "author": "bob", "status": "draft"}, base_version=1,
                        actor=Actor("ann"), comment="", at=T0 + 5)  # fmt: skip
        self.assertEqual(client().zrange(keys.authors(), 0, -1), ["ann\x00Ann", "bob\x00bob"])
        store.delete_post(first.id, actor=Actor("ann"))  # Ann's last post
        self.assertEqual(client().zrange(keys.authors(), 0, -1), ["bob\x00bob"])
        self.assertEqual(violations(["cms"]), [])
        client().zadd(keys.authors(), {"zed\x00zed": 0})  # an author with no post: found, and repaired
        client().zrem(keys.authors(), "bob\x00bob")  # an author missing: found, and repaired
        self.assertEqual(len(violations(["cms"])), 2)
        call_command("check_integrity", "--only", "cms", "--repair", stdout=io.StringIO())
        self.assertEqual(client().zrange(keys.authors(), 0, -1), ["bob\x00bob"])
        self.assertEqual(violations(["cms"]), [])


class ViewerBulkTest(RedisTestCase):
    def test_a_viewer_cannot_publish_in_bulk_and_nothing_is_written(self):
        post = make("Draft one")
        viewer = self.make_staff("viewer", role="viewer")
        self.client.force_login(viewer)
        response = self.client.post("/cms/posts/status/", {"ids": [post.id], "status": "published"})
        self.assertEqual(response.status_code, 403)
        self.assertEqual(client().hget(keys.post(post.id), "status"), "draft")
        self.assertEqual(client().zcard(keys.by_status("published")), 0)
