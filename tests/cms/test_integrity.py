"""The CMS invariants: they hold after any mix of writes, concurrent ones included, and catch each break."""

import contextlib
import io
import random
import threading

from django.core.management import call_command
from django.test import override_settings

from cms import keys, store
from config.activity import Actor
from config.invariants import violations
from config.keyspace import keyspace
from config.redis import client
from tests.base import RedisTestCase, run_concurrently

T0 = 1_767_600_000.0
A = Actor("tester")


def make(title="Hello", author="ann", status="draft", at=T0):
    data = {"title": title, "body": "Body.", "author": author, "status": status}
    return store.create_post(data, actor=Actor(author), comment="", at=at)


def edit(post_id, version, n, **changes):
    current = store.get_post(post_id).post
    data = {**current.content(), "body": f"Body {n}.", **changes}
    return store.save_post(post_id, data, base_version=version, actor=Actor("bob"), comment=f"edit {n}", at=T0 + n)


def messages():
    return [f"{inv.name}: {v.message}" for inv, v in violations(["cms"])]


class InvariantTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.post = make()
        for n in range(1, 5):
            edit(self.post.id, n, n)
        self.comments = [
            store.add_comment(self.post.id, author="c", text=f"t{n}", at=T0 + n, actor=Actor("tester"))
            for n in range(5)
        ]
        self.other = make(title="Other", author="bob", status="published", at=T0 + 9)

    def repair(self):
        call_command("check_integrity", "--only", "cms", "--repair", stdout=io.StringIO())

    def test_they_hold_after_normal_writes_and_every_key_is_registered(self):
        store.revert_post(self.post.id, 2, actor=Actor("x"), at=T0 + 20)
        store.delete_comment(self.post.id, self.comments[-1], actor=Actor("x"))
        store.delete_post(self.other.id, actor=Actor("x"))
        self.assertEqual(messages(), [])
        unregistered = [k for k in client().scan_iter("cms:*") if keyspace.match(k) is None]
        self.assertEqual(unregistered, [])

    def test_a_gap_in_the_revisions_is_caught(self):
        client().zremrangebyscore(keys.revisions(self.post.id), 2, 2)
        self.assertTrue(any("not contiguous" in m for m in messages()), messages())

    def test_a_version_that_does_not_follow_the_revisions_is_caught(self):
        client().hset(keys.post(self.post.id), "version", "9")
        self.assertTrue(any("newest revision is 4, version is 9" in m for m in messages()), messages())
        client().hset(keys.post(self.other.id), "version", "3")
        self.assertTrue(any(f"post {self.other.id} is at version 3 but keeps no revision" in m for m in messages()))

    def test_a_cap_lowered_later_is_caught_and_trimmed(self):
        with override_settings(CMS_REVISIONS_KEPT=2):
            self.assertTrue(any("keeps 4 revisions, cap is 2" in m for m in messages()))
            self.repair()
            self.assertEqual(messages(), [])
        self.assertEqual(client().zrange(keys.revisions(self.post.id), 0, -1, withscores=True)[0][1], 3.0)

    def test_a_stale_embed_or_count_is_caught_and_rebuilt(self):
        client().hset(keys.post(self.post.id), mapping={"recent_comments": "[]", "num_comments": "2"})
        found = messages()
        self.assertTrue(any("embedded comments [] != newest" in m for m in found), found)
        self.assertTrue(any("num_comments 2 != 5" in m for m in found), found)
        self.repair()
        self.assertEqual(messages(), [])
        self.assertEqual([c.text for c in store.get_post(self.post.id).recent_comments], ["t4", "t3", "t2"])

    def test_dangling_comment_ids_are_caught_and_dropped(self):
        client().delete(keys.comment(self.comments[0]))
        client().hset(keys.comment(999), mapping={"post": "777", "author": "x", "text": "orphan", "at": "1"})
        found = messages()
        self.assertTrue(any(f"lists comment {self.comments[0]}" in m for m in found), found)
        self.assertTrue(any("comment 999 of post 777" in m for m in found), found)
        self.repair()
        self.assertEqual(messages(), [])
        self.assertFalse(client().exists(keys.comment(999)))

    def test_index_entries_missing_or_dangling_are_caught_and_rebuilt(self):
        client().zrem(keys.by_status("draft"), str(self.post.id))
        client().zadd(keys.by_updated(), {"555": T0})
        client().zadd(keys.by_author("ann"), {str(self.other.id): T0})
        found = messages()
        missing = f"post {self.post.id} (draft, ann) is missing from cms:{{cms}}:index:status:draft"
        self.assertTrue(any(missing in m for m in found), found)
        self.assertTrue(any("cms:{cms}:index:updated holds '555'" in m for m in found), found)
        self.assertTrue(any(f"cms:{{cms}}:index:author:ann holds '{self.other.id}'" in m for m in found), found)
        self.repair()
        self.assertEqual(messages(), [])


class ConcurrencyTest(RedisTestCase):
    sign_in = False

    def test_concurrent_editors_commenters_and_reverts_keep_every_invariant(self):
        posts = [make(title=f"Post {n}", at=T0 + n).id for n in range(3)]
        saved = {post_id: 0 for post_id in posts}
        lock = threading.Lock()

        def worker(seed):
            rng = random.Random(seed)
            for step in range(30):
                post_id = rng.choice(posts)
                roll = rng.random()
                if roll < 0.5:
                    current = store.get_post(post_id).post
                    try:
                        changes = {"title": f"T{seed}-{step}", "status": rng.choice(["draft", "published"])}
                        if edit(post_id, current.version, seed * 100 + step, **changes):
                            with lock:
                                saved[post_id] += 1
                    except store.EditConflict:
                        pass  # refused: someone saved first, and nothing was written
                elif roll < 0.6:
                    current = store.get_post(post_id).post
                    if current.version > 1:
                        number = rng.randint(1, current.version - 1)
                        if store.revert_post(post_id, number, actor=Actor("r"), at=T0 + step):
                            with lock:
                                saved[post_id] += 1
                elif roll < 0.85:
                    at = T0 + rng.random() * 100
                    store.add_comment(post_id, author=f"w{seed}", text=f"c{step}", at=at, actor=Actor("tester"))
                else:
                    page = store.get_post(post_id)
                    if page.recent_comments:
                        with contextlib.suppress(store.NotFound):  # another worker deleted it first
                            store.delete_comment(post_id, page.recent_comments[0].id, actor=Actor("w"))

        run_concurrently(worker, [(seed,) for seed in range(8)])
        self.assertEqual(messages(), [])
        for post_id in posts:
            self.assertEqual(store.get_post(post_id).post.version, 1 + saved[post_id])
            self.assertEqual(client().zcard(keys.revisions(post_id)), saved[post_id])


class TitleMemberTest(RedisTestCase):
    sign_in = False

    def test_a_wrong_title_member_is_caught_and_rebuilt(self):
        post = make(title="Über Redis")
        client().hset(keys.post(post.id), "title_member", "stale\x00x")
        found = messages()
        self.assertTrue(any(f"post {post.id}: title_member 'stale\\x00x'" in m for m in found), found)
        call_command("check_integrity", "--only", "cms", "--repair", stdout=io.StringIO())
        self.assertEqual(messages(), [])
        self.assertEqual(client().hget(keys.post(post.id), "title_member"), f"über redis\x00{post.id}")


class DeleteRaceTest(RedisTestCase):
    sign_in = False

    def test_comments_added_while_posts_are_deleted_never_dangle(self):
        posts = [make(title=f"Post {n}", at=T0 + n).id for n in range(6)]

        def commenter(seed):
            rng = random.Random(seed)
            for step in range(25):
                with contextlib.suppress(store.NotFound):  # the post went first: nothing written
                    store.add_comment(rng.choice(posts), author="c", text=f"{seed}-{step}", at=T0 + step, actor=A)

        def deleter():
            for post_id in posts[:4]:
                store.delete_post(post_id, actor=A)

        run_concurrently(lambda who: deleter() if who == "d" else commenter(who), [("d",), (1,), (2,), (3,)])
        self.assertEqual(messages(), [])
        left = {k for k in client().scan_iter("cms:{cms}:comment:*")}
        held = {keys.comment(m) for post_id in posts[4:] for m in client().zrange(keys.post_comments(post_id), 0, -1)}
        self.assertEqual(left, held)
