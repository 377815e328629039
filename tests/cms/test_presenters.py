"""What the CMS screens show from the values ``cms.presenters`` prepares: links where the URLconf
says, stored text escaped in every row, times as strftime writes them."""

import json

from django.test import SimpleTestCase
from django.urls import reverse

from cms import presenters, store
from cms.documents import Post, Revision
from config.activity import Actor
from tests.base import RedisTestCase

NASTY = "<b>&\"'</b>"
ESCAPED = "&lt;b&gt;&amp;&quot;&#x27;&lt;/b&gt;"
T0 = 60.0


def nasty_post():
    """A post at version 2 whose every text is markup, with one comment of markup."""
    data = {"title": NASTY, "body": NASTY, "author": "ann", "status": "draft"}
    post = store.create_post(data, actor=Actor(NASTY), comment=NASTY, at=T0)
    changed = {**data, "title": NASTY + "2", "body": NASTY + " more"}
    saved = store.save_post(post.id, changed, base_version=1, actor=Actor(NASTY), comment=NASTY, at=T0 + 60)
    comment = store.add_comment(post.id, author=NASTY, text=NASTY, at=T0 + 30, actor=Actor("tester"))
    return saved, comment


class PagesTest(RedisTestCase):
    def test_stored_text_is_escaped_on_every_screen(self):
        post, comment = nasty_post()
        pages = {
            "list": reverse("cms:post_list"),
            "detail": reverse("cms:post_detail", args=[post.id]),
            "history": reverse("cms:post_history", args=[post.id]),
            "comments": reverse("cms:comment_list", args=[post.id]),
            "compare": reverse("cms:post_compare", args=[post.id]) + "?a=1",
            "revert": reverse("cms:post_revert", args=[post.id, 1]),
        }
        for name, url in pages.items():
            page = self.client.get(url).content.decode()
            with self.subTest(name):
                self.assertNotIn(NASTY, page)
                self.assertIn(ESCAPED, page)
        compare = self.client.get(pages["compare"]).content.decode()
        self.assertIn(f'<div class="text"><del>{ESCAPED}</del><ins>{ESCAPED}2</ins></div>', compare)
        self.assertIn(f'<div class="text">{ESCAPED}<ins> more</ins></div>', compare)

    def test_every_link_is_the_url_the_urlconf_gives(self):
        post, comment = nasty_post()
        listed = self.client.get(reverse("cms:post_list")).content.decode()
        self.assertIn(f'<a href="{reverse("cms:post_detail", args=[post.id])}">', listed)
        self.assertIn('<time datetime="1970-01-01T00:02:00+00:00">1970-01-01 00:02</time>', listed)
        for name in ("post_add", "post_bulk_delete"):
            self.assertIn(f'"{reverse(f"cms:{name}")}"', listed, name)
        detail = self.client.get(reverse("cms:post_detail", args=[post.id])).content.decode()
        for name in ("post_edit", "post_history", "post_delete", "comment_add"):
            self.assertIn(f'"{reverse(f"cms:{name}", args=[post.id])}"', detail, name)
        self.assertIn(f'href="{reverse("cms:comment_delete", args=[post.id, comment])}">Delete</a>', detail)
        self.assertIn("<dt>Last saved</dt><dd>1970-01-01 00:02:00 by &lt;b&gt;", detail)
        comments = self.client.get(reverse("cms:comment_list", args=[post.id])).content.decode()
        self.assertIn(f'href="{reverse("cms:comment_delete", args=[post.id, comment])}">Delete</a>', comments)
        self.assertIn("<td>1970-01-01 00:01</td>", comments)
        history = self.client.get(reverse("cms:post_history", args=[post.id])).content.decode()
        compare = reverse("cms:post_compare", args=[post.id])
        self.assertIn(f'<a href="{reverse("cms:post_revert", args=[post.id, 1])}">Revert to this…</a>', history)
        self.assertIn(f'<a href="{compare}?a=1&amp;b=2">Compare with previous</a>', history)
        self.assertIn(f'<a href="{compare}?a=1">Compare with current</a>', history)


class WhenTest(SimpleTestCase):
    def test_times_are_written_as_strftime_writes_them_in_any_zone(self):
        from datetime import datetime
        from zoneinfo import ZoneInfo

        for zone in (ZoneInfo("UTC"), ZoneInfo("America/St_Johns"), ZoneInfo("Asia/Kathmandu")):
            for epoch in (0.0, 59.999, 1_767_600_000.5, 951_782_400.0, 4_102_444_799.0):
                moment = datetime.fromtimestamp(epoch, zone)
                for pattern in (presenters.MINUTE, presenters.SECOND, "%d/%m/%Y"):
                    with self.subTest(zone=str(zone), epoch=epoch, pattern=pattern):
                        self.assertEqual(presenters.when(epoch, pattern, zone), moment.strftime(pattern))


class SnapshotTest(SimpleTestCase):
    def test_a_snapshot_is_the_json_the_encoder_writes_and_reads_back(self):
        tricky = ['', 'plain', 'quote " and \\ backslash', "line\nbreak\ttab\r", "\x00\x1f\x7f ctl",
                  "Über ☃ 𝄞 日本", "</script><b>&amp;", "\u2028\u2029 separators", "🙂" * 3]  # fmt: skip
        for text in tricky:
            post = Post(7, text, text * 2, "ann", "draft", text, 1.5, 2.25, version=3, comment=text, changed=("title",))
            fields = post.to_fields()
            with self.subTest(text=text):
                compact = json.dumps(fields, separators=(",", ":"), ensure_ascii=False)
                self.assertEqual(Revision(post).to_json(), compact)
                self.assertEqual(Revision.from_json(7, Revision(post).to_json()).post, post)
