"""``manage.py migrate_keys``: earlier layouts' keys renamed to today's, the old stream split, resumable."""

import re
from io import StringIO
from unittest import mock

from django.core.management import call_command
from django.test import tag as test_tag

from config import keylayout, keys
from config.invariants import violations
from config.redis import client
from orgchart import keys as orgchart_keys
from tests.base import RedisTestCase

MOVES = [keylayout.Move("test", "test:*", keylayout.tagged("test:", "test"))]
ROUTES = {"test": lambda fields: keys.events("cms")}


@mock.patch.object(keylayout, "_routes", ROUTES)
@mock.patch.object(keylayout, "_moves", MOVES)
class MigrateKeysTest(RedisTestCase):
    sign_in = False

    def migrate(self, *args) -> str:
        out, err = StringIO(), StringIO()
        call_command("migrate_keys", *args, stdout=out, stderr=err)
        return out.getvalue() + err.getvalue()

    def old_layout(self, things: int = 3) -> None:
        redis = client()
        for n in range(1, things + 1):
            redis.hset(f"test:thing:{n}", mapping={"name": f"Thing {n}"})
        redis.zadd("test:index", {str(n): n for n in range(1, things + 1)})
        redis.hset(keys.seed_marker(), mapping={"scale": "demo"})  # seeded before layouts were recorded
        redis.xadd("core:events", {"app": "test", "label": "made"}, id="1000-0")
        redis.xadd("core:events", {"app": "core", "label": "locked"}, id="1001-0")
        redis.xadd("core:events", {"app": "test", "label": "edited"}, id="1002-0")

    def test_every_key_gets_its_tag_and_every_event_its_group_s_stream_with_its_id(self):
        self.old_layout()
        out = self.migrate()
        self.assertIn("test: renamed 4 keys of an earlier layout", out)
        self.assertIn("events: moved 3", out)
        redis = client()
        self.assertEqual(
            sorted(redis.keys("test:*")), ["test:{test}:index", *(f"test:{{test}}:thing:{n}" for n in (1, 2, 3))]
        )
        self.assertEqual(redis.hget("test:{test}:thing:2", "name"), "Thing 2")
        self.assertEqual(redis.zcard("test:{test}:index"), 3)
        self.assertEqual([i for i, _ in redis.xrange(keys.events("cms"))], ["1000-0", "1002-0"])
        self.assertEqual([f["label"] for _, f in redis.xrange(keys.SIGNIN_EVENTS)], ["locked"])  # no route: core's
        self.assertEqual(redis.exists("core:events"), 0)
        self.assertEqual(redis.hget(keys.seed_marker(), "layout"), str(keylayout.LAYOUT))
        self.assertEqual(self.migrate(), "")  # again: nothing left to move

    def test_a_run_stopped_part_way_resumes_and_marks_the_layout_only_at_the_end(self):
        self.old_layout(things=6)
        out = self.migrate("--batch", "1", "--max-batches", "1")
        self.assertIn("run migrate_keys again", out)
        self.assertIsNone(client().hget(keys.seed_marker(), "layout"))
        self.assertEqual(client().xlen("core:events"), 2)  # one batch of one event moved
        self.migrate("--batch", "2")
        self.assertEqual(sorted(client().keys("test:thing:*")), [])
        self.assertEqual(len(client().keys("test:{test}:thing:*")), 6)
        self.assertEqual(client().xlen(keys.events("cms")), 2)
        self.assertEqual(client().hget(keys.seed_marker(), "layout"), str(keylayout.LAYOUT))

    def test_a_dry_run_counts_and_writes_nothing(self):
        self.old_layout()
        before = sorted(client().keys("*"))
        out = self.migrate("--dry-run")
        self.assertIn("test: would rename 4 keys of an earlier layout", out)
        self.assertIn("events: would move 3", out)
        self.assertEqual(sorted(client().keys("*")), before)

    def test_a_name_already_taken_is_reported_and_both_keys_are_left(self):
        self.old_layout(things=1)
        client().set("test:{test}:thing:1", "today's")
        out = self.migrate()
        self.assertIn("test:thing:1 left as it is: test:{test}:thing:1 already exists", out)
        self.assertEqual(client().get("test:{test}:thing:1"), "today's")
        self.assertEqual(client().hget("test:thing:1", "name"), "Thing 1")

    def test_an_old_event_older_than_its_stream_s_newest_is_dropped_and_counted(self):
        self.old_layout(things=1)
        client().xadd(keys.events("cms"), {"app": "test", "label": "since the upgrade"}, id="1001-5")
        out = self.migrate()
        self.assertIn("1 dropped: their stream already held newer events", out)
        self.assertEqual([i for i, _ in client().xrange(keys.events("cms"))], ["1001-5", "1002-0"])
        self.assertEqual(client().exists("core:events"), 0)

    def test_data_never_seeded_is_not_marked(self):
        client().hset("test:thing:1", "name", "x")
        self.migrate()
        self.assertEqual(client().exists(keys.seed_marker()), 0)


@test_tag("slow")  # the loop below names its hash tags `tag`
class SeededDataMigrationTest(RedisTestCase):
    """Each app's own declared move, on its seeded demo data taken back to layout 1."""

    sign_in = False

    def test_the_seeded_apps_come_back_whole_from_layout_1(self):
        for app in ("school", "cms", "orgchart"):
            call_command("seed", "--scale", "demo", "--only", app, stdout=StringIO(), stderr=StringIO())
        redis = client()
        today = {key: redis.dump(key) for key in redis.scan_iter() if not key.startswith("core:")}
        events = sorted(
            (entry for stream in keys.event_streams() for entry in redis.xrange(stream)),
            key=lambda entry: tuple(map(int, entry[0].split("-"))),
        )
        self.assertTrue(any(key.startswith("school:{school}:") for key in today))
        sensors = [key for key in today if key.startswith("orgchart:{sensor-")]
        self.assertTrue(sensors)
        for key in today:  # back to layout 1: no hash tag, one stream
            for tag in ("{school}", "{cms}", "{orgchart}", "{sensor-"):
                if key.startswith(f"{key.split(':')[0]}:{tag}"):
                    redis.rename(key, re.sub(r"\{[^}]*\}:", "", key, count=1))
        for entry_id, fields in events:
            redis.xadd(keys.layout_1_events(), fields, id=entry_id)
        redis.delete(*keys.event_streams())
        redis.hdel(keys.seed_marker(), "layout")

        out = StringIO()
        call_command("migrate_keys", stdout=out)
        self.assertIn("school: renamed", out.getvalue())
        self.assertEqual({key: redis.dump(key) for key in redis.scan_iter() if not key.startswith("core:")}, today)
        moved = [(entry_id, fields) for stream in keys.event_streams() for entry_id, fields in redis.xrange(stream)]
        self.assertEqual(sorted(moved), sorted(events))
        self.assertEqual(violations(["school", "cms", "orgchart"]), [])
        self.assertEqual(redis.hget(keys.seed_marker(), "layout"), str(keylayout.LAYOUT))

    def test_each_location_s_sensor_data_moves_from_layout_2_to_its_own_slot(self):
        call_command("seed", "--scale", "demo", "--only", "orgchart", stdout=StringIO(), stderr=StringIO())
        redis = client()
        today = {key: (redis.dump(key), redis.pttl(key) > 0) for key in redis.scan_iter("orgchart:*")}
        sensors = [key for key in today if key.startswith("orgchart:{sensor-")]
        self.assertGreater(len({orgchart_keys.sensor_location(key) for key in sensors}), 1)
        for key in sensors:  # back to layout 2: the sensor data in the org chart's slot
            redis.rename(key, re.sub(r"\{sensor-\d+\}", "{orgchart}", key, count=1))
        redis.hset(keys.seed_marker(), "layout", "2")

        out = StringIO()
        call_command("migrate_keys", stdout=out)
        self.assertIn(f"orgchart: renamed {len(sensors)} keys of an earlier layout", out.getvalue())
        self.assertEqual({key: (redis.dump(key), redis.pttl(key) > 0) for key in redis.scan_iter("orgchart:*")}, today)
        self.assertEqual(violations(["orgchart"]), [])
        self.assertEqual(redis.hget(keys.seed_marker(), "layout"), str(keylayout.LAYOUT))
