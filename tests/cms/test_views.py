"""The CMS screens: what the user sees, what Redis holds, and the round trips of each."""

import json
import re

from django.test import tag
from django.urls import reverse

from cms import keys, store
from cms.store import scripts
from config.activity import Actor
from config.redis import client
from tests.base import RedisTestCase

T0 = 1_767_600_000.0


def make(title="Hello world", body="The quick brown fox jumps.", author="ann", status="draft", at=T0):
    data = {"title": title, "body": body, "author": author, "status": status}
    return store.create_post(data, actor=Actor(author), comment="", at=at)


def form_data(post, **changes):
    return {
        "title": post.title,
        "body": post.body,
        "author": post.author,
        "status": post.status,
        "comment": "",
        "version": str(post.version),
        **changes,
    }


@tag("cluster")
class PostScreensTest(RedisTestCase):
    def test_list_is_one_round_trip_and_shows_summary_fields_only(self):
        make(title="First <b>post</b>", body="SECRET BODY")
        make(title="Second post", status="published", at=T0 + 1)
        with self.assertRoundTrips(1):
            response = self.client.get("/cms/posts/")
        self.assertContains(response, "First &lt;b&gt;post&lt;/b&gt;")
        self.assertContains(response, "Second post")
        self.assertNotContains(response, "SECRET BODY")
        self.assertContains(response, "Secondary indexes")  # the pattern note

    def test_list_search_filters_and_htmx_partial(self):
        make(title="Redis streams")
        make(title="Hashes", author="bob", at=T0 + 1)
        make(title="Redis hashes", author="bob", status="published", at=T0 + 2)
        with self.assertRoundTrips(3):  # the authors meant, the title n-gram index, then the filtered page
            response = self.client.get("/cms/posts/?q=redis&author=bob", headers={"HX-Request": "true"})
        self.assertContains(response, "Redis hashes")
        self.assertNotContains(response, "Redis streams")
        self.assertNotContains(response, "<h1>Posts</h1>")  # the partial only
        response = self.client.get("/cms/posts/?status=draft&o=updated")
        self.assertEqual(response.context["page"].paginator.count, 2)

    def test_a_malformed_filter_is_an_error_beside_it_and_touches_no_key(self):
        make()
        with self.assertRoundTrips(1) as trace:
            response = self.client.get("/cms/posts/?author=bad%20name:*&status=nope")
        self.assertContains(response, "Author: Enter a valid value.")
        self.assertContains(response, "Status: Select a valid choice.")
        self.assertEqual([k for k in trace.touched_keys() if k.startswith("cms:")], [keys.by_updated()])

    def test_the_unfiltered_list_shows_the_same_toolbar_without_building_the_filter_form(self):
        make()
        plain = self.client.get("/cms/posts/")
        self.assertIsNone(plain.context["filter_form"])  # nothing to validate
        filtered = self.client.get("/cms/posts/?author=ann")
        select = re.compile(r'<select name="status".*?</select>', re.S)
        self.assertEqual(select.findall(plain.content.decode()), select.findall(filtered.content.decode()))
        self.assertContains(plain, 'name="author" value=""')
        self.assertContains(filtered, 'name="author" value="ann"')
        chosen = self.client.get("/cms/posts/?status=draft")
        self.assertContains(chosen, '<option value="draft" selected>Draft</option>', html=True)

    def test_empty_list(self):
        response = self.client.get("/cms/posts/")
        self.assertContains(response, "No posts yet.")

    def test_add_with_bad_input_shows_errors_and_writes_nothing(self):
        response = self.client.post(
            "/cms/posts/add/", {"title": "", "body": "x", "author": "no spaces!", "status": "x"}
        )
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "This field is required.")
        self.assertContains(response, "Enter a valid value.")
        self.assertEqual(list(client().scan_iter("cms:*")), [])

    def test_add_creates_version_one(self):
        response = self.client.post(
            "/cms/posts/add/", {"title": "New", "body": "Body", "author": "staff", "status": "draft", "comment": ""}
        )
        post_id = int(client().get(keys.post_ids()))
        self.assertRedirects(response, f"/cms/posts/{post_id}/")
        self.assertEqual(client().hget(keys.post(post_id), "version"), "1")
        self.assertEqual(client().hget(keys.post(post_id), "last_saved_by"), "staff")

    def test_detail_is_one_round_trip_and_shows_the_newest_comments_from_the_embed(self):
        post = make(body="Body with <script>alert(1)</script>")
        for n in range(5):
            store.add_comment(post.id, author="cat", text=f"comment number {n} <i>", at=T0 + n, actor=Actor("tester"))
        with self.assertRoundTrips(1) as trace:
            response = self.client.get(f"/cms/posts/{post.id}/")
        self.assertFalse([k for k in trace.touched_keys() if k.startswith("cms:{cms}:comment:")])
        self.assertContains(response, "&lt;script&gt;alert(1)&lt;/script&gt;")
        for n in (4, 3, 2):
            self.assertContains(response, f"comment number {n} &lt;i&gt;")
        self.assertNotContains(response, "comment number 1")
        self.assertContains(response, "All 5 comments")

    def test_unknown_or_malformed_ids_are_404(self):
        for path in (
            "/cms/posts/99/",
            "/cms/posts/99/edit/",
            "/cms/posts/99/delete/",
            "/cms/posts/99/history/",
            "/cms/posts/99/compare/?a=1",
            "/cms/posts/99/comments/",
        ):
            with self.subTest(path=path):
                self.assertEqual(self.client.get(path).status_code, 404)
        self.assertEqual(self.client.get("/cms/posts/abc/").status_code, 404)
        self.assertEqual(self.client.post("/cms/posts/99/revisions/1/revert/").status_code, 404)
        self.assertEqual(self.client.post("/cms/posts/99/delete/").status_code, 404)

    def test_delete_confirms_then_removes_everything(self):
        post = make()
        store.add_comment(post.id, author="cat", text="hi", at=T0, actor=Actor("tester"))
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{post.id}/delete/")
        self.assertContains(response, "its 1 comment")
        self.assertTrue(client().exists(keys.post(post.id)))
        response = self.client.post(f"/cms/posts/{post.id}/delete/", follow=True)
        self.assertContains(response, "was deleted")
        self.assertEqual(sorted(client().scan_iter("cms:*")), ["cms:{cms}:ids:comment", "cms:{cms}:ids:post"])


class EditTest(RedisTestCase):
    def test_edit_form_carries_the_version_and_saves_a_revision(self):
        post = make()
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{post.id}/edit/")
        self.assertContains(response, 'name="version" value="1"')
        response = self.client.post(f"/cms/posts/{post.id}/edit/", form_data(post, title="Better", comment="why"))
        self.assertRedirects(response, f"/cms/posts/{post.id}/")
        stored = client().hgetall(keys.post(post.id))
        self.assertEqual((stored["title"], stored["version"], stored["last_saved_by"]), ("Better", "2", "staff"))
        self.assertEqual(client().zcard(keys.revisions(post.id)), 1)

    def test_a_save_without_changes_says_so_and_makes_no_revision(self):
        post = make()
        response = self.client.post(f"/cms/posts/{post.id}/edit/", form_data(post), follow=True)
        self.assertContains(response, "Nothing changed")
        self.assertFalse(client().exists(keys.revisions(post.id)))

    def test_two_editors_the_second_is_refused_and_keeps_their_text(self):
        post = make(body="The quick brown fox jumps.")
        other = self.make_staff("other")
        # Both open the edit form at version 1.
        mine = self.client.get(f"/cms/posts/{post.id}/edit/")
        self.assertContains(mine, 'name="version" value="1"')
        theirs = self.client_class()
        theirs.force_login(other)
        response = theirs.post(
            f"/cms/posts/{post.id}/edit/", form_data(post, body="The quick red fox jumps.", comment="colour")
        )
        self.assertEqual(response.status_code, 302)
        # My save, made on version 1, must not overwrite theirs.
        response = self.client.post(f"/cms/posts/{post.id}/edit/", form_data(post, title="My new title"))
        self.assertEqual(response.status_code, 409)
        self.assertContains(response, "Someone else saved this post while you were editing", status_code=409)
        self.assertContains(response, "Changed fields: <strong>body</strong>", status_code=409)
        self.assertContains(response, "<del>brown</del><ins>red</ins>", status_code=409)
        self.assertContains(response, 'value="My new title"', status_code=409)  # my text is kept
        self.assertContains(response, 'name="version" value="2"', status_code=409)
        stored = client().hgetall(keys.post(post.id))
        self.assertEqual(
            (stored["title"], stored["body"], stored["version"]), (post.title, "The quick red fox jumps.", "2")
        )
        # Having seen the change, saving again is deliberate and goes through as version 3.
        data = form_data(post, title="My new title", body="The quick red fox jumps.", version="2")
        self.assertEqual(self.client.post(f"/cms/posts/{post.id}/edit/", data).status_code, 302)
        stored = client().hgetall(keys.post(post.id))
        self.assertEqual((stored["title"], stored["version"]), ("My new title", "3"))

    def test_bad_input_on_edit_shows_errors_and_writes_nothing(self):
        post = make()
        before = client().hgetall(keys.post(post.id))
        response = self.client.post(f"/cms/posts/{post.id}/edit/", form_data(post, title="", status="gone"))
        self.assertContains(response, "This field is required.")
        self.assertContains(response, "Select a valid choice.")
        self.assertEqual(client().hgetall(keys.post(post.id)), before)


class HistoryTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        scripts.load_scripts()  # as a running server has them: the history page is one EVALSHA
        self.post = make(body="one two three")
        for n in range(1, 25):
            store.save_post(
                self.post.id,
                {**self.post.content(), "body": f"one two three {n}"},
                base_version=n,
                actor=Actor(f"user{n}"),
                comment=f"edit {n}",
                at=T0 + n,
            )

    def test_history_is_newest_first_paged_and_one_round_trip(self):
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{self.post.id}/history/")
        rows = response.context["page"].object_list
        self.assertEqual([r.number for r in rows], list(range(24, 4, -1)))
        self.assertContains(response, '25 <span class="muted">(current)</span>')
        self.assertContains(response, "edit 24")
        self.assertContains(response, "user23")
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{self.post.id}/history/?page=2", headers={"HX-Request": "true"})
        shown = re.findall(r'<tr data-revision="(\d+)"', response.content.decode())  # the partial: rows only
        self.assertEqual(shown, ["4", "3", "2", "1"])
        self.assertNotContains(response, "(current)")
        past = self.client.get(f"/cms/posts/{self.post.id}/history/?page=3", follow=True)  # the last page, said
        self.assertEqual(past.redirect_chain, [(f"/cms/posts/{self.post.id}/history/?page=2", 302)])
        self.assertContains(past, "Page 3 is past the end of the list: this is its last page, 2.")

    def test_compare_two_revisions_shows_an_escaped_word_diff_in_one_round_trip(self):
        store.save_post(
            self.post.id,
            {**self.post.content(), "body": "one <b>two</b> three", "title": "New title"},
            base_version=25,
            actor=Actor("x"),
            comment="",
            at=T0 + 99,
        )
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{self.post.id}/compare/?a=1&b=26")
        self.assertContains(response, "<del>Hello</del>")
        self.assertContains(response, "<ins>New</ins>")
        self.assertContains(response, "one <del>two</del><ins>&lt;b&gt;two&lt;/b&gt;</ins> three")
        self.assertNotContains(response, 'data-field="author"')
        self.assertNotContains(response, "<b>two</b>")

    def test_compare_with_current_by_default_and_identical_versions(self):
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{self.post.id}/compare/?a=24")
        self.assertContains(response, "Revision 24 → revision 25 (current)")
        self.assertContains(response, "one two three <del>23</del><ins>24</ins>")
        store.revert_post(self.post.id, 3, actor=Actor("x"), at=T0 + 100)
        response = self.client.get(f"/cms/posts/{self.post.id}/compare/?a=3&b=26")
        self.assertContains(response, "Nothing differs")

    def test_revert_shows_the_diff_it_will_apply_then_asks(self):
        with self.assertRoundTrips(1):
            asked = self.client.get(f"/cms/posts/{self.post.id}/revisions/3/revert/")
        self.assertContains(asked, "Revert to revision 3?")
        self.assertContains(asked, "one two three <del>24</del><ins>2</ins>")  # from the current version to 3
        self.assertContains(asked, '<input type="hidden" name="version" value="25">')
        self.assertContains(asked, '<button type="submit" class="danger">Revert to revision 3</button>')
        self.assertEqual(client().hget(keys.post(self.post.id), "version"), "25")
        self.assertEqual(self.client.get(f"/cms/posts/{self.post.id}/revisions/99/revert/").status_code, 404)
        history = self.client.get(f"/cms/posts/{self.post.id}/history/")
        self.assertNotContains(history, 'method="post" action="/cms/posts/')  # a link to the question, no form

    def test_a_revert_over_a_newer_save_shows_the_changes_now_and_reverts_nothing(self):
        store.save_post(
            self.post.id, {**self.post.content(), "body": "changed meanwhile"}, base_version=25,
            actor=Actor("x"), comment="", at=T0 + 50,
        )  # fmt: skip
        response = self.client.post(f"/cms/posts/{self.post.id}/revisions/3/revert/", {"version": "25"})
        self.assertContains(response, "was saved again (now version 26)", status_code=409)
        self.assertContains(response, "<del>changed</del><ins>one</ins> <del>meanwhile</del>", status_code=409)
        self.assertContains(response, '<input type="hidden" name="version" value="26">', status_code=409)
        self.assertEqual(client().hget(keys.post(self.post.id), "body"), "changed meanwhile")
        done = self.client.post(f"/cms/posts/{self.post.id}/revisions/3/revert/", {"version": "26"})
        self.assertRedirects(done, f"/cms/posts/{self.post.id}/history/", fetch_redirect_response=False)
        self.assertEqual(client().hget(keys.post(self.post.id), "body"), "one two three 2")

    def test_compare_with_bad_input_or_a_missing_revision(self):
        response = self.client.get(f"/cms/posts/{self.post.id}/compare/?a=abc")
        self.assertContains(response, "Enter a whole number.")
        self.assertEqual(self.client.get(f"/cms/posts/{self.post.id}/compare/?a=77").status_code, 404)

    def test_revert_adds_a_version_and_never_rewrites_history(self):
        asked = self.client.get(f"/cms/posts/{self.post.id}/revisions/2/revert/")  # the diff first, then the button
        self.assertContains(asked, "Revert to revision 2")
        self.assertEqual(client().hget(keys.post(self.post.id), "version"), "25")  # asking wrote nothing
        response = self.client.post(f"/cms/posts/{self.post.id}/revisions/2/revert/", follow=True)
        self.assertContains(response, "“Hello world” reverted to revision 2: saved as version 26.")
        self.assertContains(response, "Reverted to revision 2</td>")
        self.assertEqual(client().hget(keys.post(self.post.id), "body"), "one two three 1")
        self.assertEqual(client().zcard(keys.revisions(self.post.id)), 25)
        self.assertEqual(self.client.post(f"/cms/posts/{self.post.id}/revisions/99/revert/").status_code, 404)


class CommentScreensTest(RedisTestCase):
    def test_add_comment_updates_the_embed(self):
        post = make()
        response = self.client.post(f"/cms/posts/{post.id}/comments/add/", {"text": "Nice <em>post</em>"}, follow=True)
        self.assertContains(response, "Nice &lt;em&gt;post&lt;/em&gt;")
        embed = json.loads(client().hget(keys.post(post.id), "recent_comments"))
        self.assertEqual([c["text"] for c in embed], ["Nice <em>post</em>"])
        self.assertEqual(embed[0]["author"], "staff")

    def test_empty_comment_is_an_error_and_writes_nothing(self):
        post = make()
        response = self.client.post(f"/cms/posts/{post.id}/comments/add/", {"text": ""})
        self.assertContains(response, "This field is required.", status_code=400)
        self.assertFalse(client().exists(keys.post_comments(post.id)))

    def test_all_comments_paged_with_htmx_in_one_round_trip(self):
        post = make()
        for n in range(25):
            store.add_comment(post.id, author="cat", text=f"comment {n:02d}", at=T0 + n, actor=Actor("tester"))
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{post.id}/comments/?page=3", headers={"HX-Request": "true"})
        self.assertContains(response, "comment 04")
        self.assertContains(response, "comment 00")
        self.assertNotContains(response, "comment 05")
        self.assertNotContains(response, "<h1>")
        self.assertContains(response, f'hx-get="/cms/posts/{post.id}/comments/?page=2"')

    def test_delete_comment_refills_the_embed_and_checks_the_post(self):
        post, other = make(), make(title="Other")
        ids = [
            store.add_comment(post.id, author="cat", text=f"c{n}", at=T0 + n, actor=Actor("tester")) for n in range(4)
        ]
        self.assertEqual(self.client.post(f"/cms/posts/{other.id}/comments/{ids[-1]}/delete/").status_code, 404)
        self.client.post(f"/cms/posts/{post.id}/comments/{ids[-1]}/delete/")
        embed = json.loads(client().hget(keys.post(post.id), "recent_comments"))
        self.assertEqual([c["text"] for c in embed], ["c2", "c1", "c0"])
        self.assertFalse(client().exists(keys.comment(ids[-1])))


class ReverseTest(RedisTestCase):
    sign_in = False

    def test_reverse_names(self):
        self.assertEqual(reverse("cms:post_list"), "/cms/posts/")


class ConfirmAndMessagesTest(RedisTestCase):
    def test_deleting_a_comment_asks_first_then_names_the_post(self):
        post = make()
        comment = store.add_comment(post.id, author="cat", text="A <b>bold</b> claim", at=T0, actor=Actor("cat"))
        page = self.client.get(f"/cms/posts/{post.id}/")
        self.assertContains(page, f'href="/cms/posts/{post.id}/comments/{comment}/delete/"')
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{post.id}/comments/{comment}/delete/")
        self.assertContains(response, "Delete this comment on “Hello world”?")
        self.assertContains(response, "A &lt;b&gt;bold&lt;/b&gt; claim")
        self.assertContains(response, "Yes, delete it")
        self.assertTrue(client().exists(keys.comment(comment)))  # asking wrote nothing
        response = self.client.post(f"/cms/posts/{post.id}/comments/{comment}/delete/", follow=True)
        self.assertContains(response, "The comment by cat on “Hello world” was deleted.")
        self.assertFalse(client().exists(keys.comment(comment)))

    def test_a_comment_of_another_post_or_a_missing_one_is_404_on_both_steps(self):
        post, other = make(), make(title="Other")
        comment = store.add_comment(post.id, author="cat", text="hi", at=T0, actor=Actor("cat"))
        for path in (f"/cms/posts/{other.id}/comments/{comment}/delete/", f"/cms/posts/{post.id}/comments/999/delete/"):
            with self.subTest(path=path):
                self.assertEqual(self.client.get(path).status_code, 404)
                self.assertEqual(self.client.post(path).status_code, 404)
        self.assertTrue(client().exists(keys.comment(comment)))

    def test_a_comment_error_comes_back_at_the_comment_form(self):
        post = make()
        response = self.client.post(f"/cms/posts/{post.id}/comments/add/", {"text": "   "})
        self.assertContains(response, "This field is required.", status_code=400)
        self.assertContains(response, 'id="comment-form"', status_code=400)
        self.assertContains(response, "autofocus", status_code=400)  # the browser scrolls to it, beside its error
        self.assertNotContains(self.client.get(f"/cms/posts/{post.id}/"), "autofocus")

    def test_success_messages_name_the_post(self):
        post = make()
        response = self.client.post(f"/cms/posts/{post.id}/comments/add/", {"text": "Nice"}, follow=True)
        self.assertContains(response, "Your comment on “Hello world” was added.")
        response = self.client.post(f"/cms/posts/{post.id}/edit/", form_data(post, title="Better"), follow=True)
        self.assertContains(response, "Saved “Better” as version 2; version 1 is in the history.")
        response = self.client.post(
            f"/cms/posts/{post.id}/edit/", form_data(post, title="Better", version="2"), follow=True
        )
        self.assertContains(response, "Nothing changed in “Better”")
        response = self.client.post(f"/cms/posts/{post.id}/delete/", follow=True)
        self.assertContains(response, "Post “Better” was deleted with its revisions and comments.")
