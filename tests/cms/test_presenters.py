"""The rows and links the CMS screens prepare in Python: the same URLs as the URLconf, text escaped."""

import json

from django.test import SimpleTestCase
from django.urls import reverse

from cms import presenters
from cms.documents import Comment, HistoryRow, Post, PostSummary, Revision, snapshot_json

NASTY = "<b>&\"'</b>"
ESCAPED = "&lt;b&gt;&amp;&quot;&#x27;&lt;/b&gt;"


class LinksTest(SimpleTestCase):
    def test_every_link_is_the_url_the_urlconf_gives(self):
        links = presenters.PostLinks.of(42)
        self.assertEqual(links.prefix, reverse("cms:post_list"))
        for name in ("detail", "edit", "delete", "history", "compare"):
            self.assertEqual(getattr(links, name), reverse(f"cms:post_{name}", args=[42]), name)
        self.assertEqual(links.comments, reverse("cms:comment_list", args=[42]))
        self.assertEqual(links.comment_add, reverse("cms:comment_add", args=[42]))
        self.assertEqual(links.comment_delete(7), reverse("cms:comment_delete", args=[42, 7]))
        self.assertEqual(links.revert(3), reverse("cms:post_revert", args=[42, 3]))
        listed = presenters.ListLinks.of()
        self.assertEqual((listed.add, listed.bulk_delete), (reverse("cms:post_add"), reverse("cms:post_bulk_delete")))


class RowsTest(SimpleTestCase):
    def test_stored_text_is_escaped_in_every_row(self):
        post = Post(3, NASTY, NASTY, "ann", "draft", NASTY, 0.0, 60.0, version=2, comment=NASTY)
        old = Post(3, NASTY, NASTY, "ann", "draft", NASTY, 0.0, 0.0, comment=NASTY)
        links = presenters.PostLinks.of(3)
        rows = [
            presenters.post_rows([PostSummary(3, NASTY, "ann", "draft", 60.0, 2, 1)], links.prefix),
            presenters.history_rows(links, post, [HistoryRow.of(Revision(old))], "token", first_page=True),
            presenters.comment_rows(links, [Comment(9, NASTY, NASTY, 30.0)]),
            presenters.recent_comments(links, [Comment(9, NASTY, NASTY, 30.0)]),
            presenters.post_head(post, links, 1),
            presenters.segments([("same", NASTY), ("del", NASTY), ("ins", NASTY)]),
        ]
        for html in rows:
            with self.subTest(html=html[:40]):
                self.assertNotIn("<b>", html)
                self.assertIn(ESCAPED, html)
        self.assertIn(f"<del>{ESCAPED}</del><ins>{ESCAPED}</ins>", rows[-1])
        self.assertIn('<time datetime="1970-01-01T00:01:00+00:00">1970-01-01 00:01</time>', rows[0])


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
                self.assertEqual(snapshot_json(fields), json.dumps(fields, separators=(",", ":"), ensure_ascii=False))
                self.assertEqual(Revision(post).to_json(), snapshot_json(fields))  # the bulk loads' shortcut
                self.assertEqual(Revision.from_json(7, Revision(post).to_json()).post, post)
