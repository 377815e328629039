"""The cap on revisions per post (CMS_REVISIONS_KEPT): on by default, applied by a save in its own
script and by a history written at once (the seeder, an import), every invariant holding."""

import json
from io import StringIO

from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from cms import conf, keys, store
from config.activity import Actor
from config.invariants import violations
from config.redis import client
from tests.base import RedisTestCase, flush_test_redis, temporary_folder

T0 = 1_767_600_000.0


def numbers(post_id: int) -> list[int]:
    return [int(score) for _, score in client().zrange(keys.revisions(post_id), 0, -1, withscores=True)]


def saved(times: int, body: str = "Body") -> int:
    content = {"title": "Hello", "body": body, "author": "ann", "status": "draft"}
    post = store.create_post(content, actor=Actor("ann"), comment="", at=T0)
    for n in range(1, times + 1):
        store.save_post(
            post.id, {**content, "body": f"{body} {n}"}, base_version=n, actor=Actor("bob"), comment="", at=T0 + n
        )
    return post.id


class RevisionCapTest(RedisTestCase):
    sign_in = False

    def test_on_by_default_the_oldest_beyond_it_dropped_by_the_save(self):
        self.assertEqual((settings.CMS_REVISIONS_KEPT, conf.revisions_kept()), (100, 100))
        post = saved(103)
        self.assertEqual(numbers(post), list(range(4, 104)))
        self.assertEqual(client().hget(keys.post(post), "version"), "104")
        self.assertEqual(violations(["cms"]), [])

    def test_an_import_keeps_the_newest_revisions_within_the_cap(self):
        with override_settings(CMS_REVISIONS_KEPT=0):
            post = saved(12)
        folder = temporary_folder(self)
        call_command("export_data", "--only", "cms", str(folder), stdout=StringIO(), stderr=StringIO())
        exported = json.loads((folder / "cms" / "posts.jsonl").read_text())
        self.assertEqual(len(exported["revisions"]), 12)
        flush_test_redis()
        with override_settings(CMS_REVISIONS_KEPT=5):
            call_command("import_data", str(folder), "--only", "cms", stdout=StringIO(), stderr=StringIO())
            self.assertEqual(numbers(post), [8, 9, 10, 11, 12])
            self.assertEqual(violations(["cms"]), [])
