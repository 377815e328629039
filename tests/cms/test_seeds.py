"""The CMS seeder: deterministic, through the store, and every invariant holds after it."""

from cms import keys, seeds
from config.invariants import violations
from config.redis import client
from config.seeding import context
from tests.base import RedisTestCase


def snapshot() -> dict[str, object]:
    found = {}
    for key in client().scan_iter("cms:*"):
        kind = client().type(key)
        if kind == "hash":
            found[key] = client().hgetall(key)
        elif kind == "zset":
            found[key] = client().zrange(key, 0, -1, withscores=True)
        elif kind == "set":
            found[key] = client().smembers(key)
        else:
            found[key] = client().get(key)
    return found


class SeedTest(RedisTestCase):
    sign_in = False

    def test_demo_scale_is_about_100_posts_with_revisions_and_comments_and_is_sound(self):
        written = seeds.seed(context("cms", "demo"))
        posts = client().zcard(keys.by_updated())
        self.assertEqual(posts, 100)
        revisions = sum(client().zcard(keys.revisions(i)) for i in range(1, 101))
        comments = sum(client().zcard(keys.post_comments(i)) for i in range(1, 101))
        self.assertTrue(4 <= revisions / posts <= 7, revisions / posts)
        self.assertTrue(8 <= comments / posts <= 12, comments / posts)
        self.assertEqual(written, posts + revisions + comments)
        self.assertEqual([f"{inv.name}: {v.message}" for inv, v in violations(["cms"])], [])
        self.assertEqual(client().xrevrange("core:{cms}:events", count=1)[0][1]["actor"], "seed")

    def test_it_is_deterministic(self):
        seeds.seed(context("cms", "demo"))
        first = snapshot()
        client().flushdb()
        seeds.seed(context("cms", "demo"))
        self.assertEqual(snapshot(), first)

        self.assertEqual([f"{inv.name}: {v.message}" for inv, v in violations(["cms"])], [])
