import random
from io import StringIO

from django.core.management import call_command

from config.invariants import violations
from config.redis import client
from orgchart import keys, sensorfeed, store
from tests.base import RedisTestCase
from tests.orgchart.helpers import location

HOUR0 = 1767571200  # 2026-01-05 00:00 UTC


def rollup(pk, period, stamp):
    row = client().hgetall(keys.temp_rollup(pk, period, stamp))
    return {k: int(v) for k, v in row.items()}


class BucketTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.pk = location("Seattle")

    def test_samples_go_to_hour_buckets_with_rollups_and_a_ttl(self):
        store.record_readings(self.pk, [(HOUR0 + 10, 20.5), (HOUR0 + 20, 21.25), (HOUR0 + 3600, 19.0)])
        raw = client().strlen(keys.temp_raw(self.pk, "2026010500"))
        self.assertEqual(raw, 8)  # two 4-byte records
        self.assertEqual(rollup(self.pk, "hour", "2026010500"), {"count": 2, "sum": 4175, "min": 2050, "max": 2125})
        self.assertEqual(rollup(self.pk, "day", "20260105"), {"count": 3, "sum": 6075, "min": 1900, "max": 2125})
        self.assertEqual(rollup(self.pk, "month", "202601"), {"count": 3, "sum": 6075, "min": 1900, "max": 2125})
        ttl = client().ttl(keys.temp_raw(self.pk, "2026010500"))
        self.assertGreater(ttl, 0)
        self.assertLessEqual(ttl, store.retention().raw)
        self.assertEqual(client().ttl(keys.temp_rollup(self.pk, "month", "202601")), -1)  # months are kept

    def test_a_repeated_timestamp_keeps_the_last_value_and_corrects_the_rollups(self):
        store.record_readings(self.pk, [(HOUR0 + s, 20.0 + s / 100) for s in range(0, 600, 6)])
        store.record_readings(self.pk, [(HOUR0 + 3600 + 6, 18.0)])  # the next hour
        stored = store.record_readings(self.pk, [(HOUR0 + 594, 10.0), (HOUR0 + 300, 99.0)])
        self.assertEqual(stored, 0)  # replaced, not added
        hour = rollup(self.pk, "hour", "2026010500")
        self.assertEqual((hour["count"], hour["min"], hour["max"]), (100, 1000, 9900))
        samples = dict(store.hour_samples(keys.temp_raw(self.pk, "2026010500"), store.sensors._utc(HOUR0)))
        self.assertEqual((samples[HOUR0 + 594], samples[HOUR0 + 300], len(samples)), (1000, 9900, 100))
        # the old max (25.94) was replaced: the day's max comes back from the hours, not stale
        store.record_readings(self.pk, [(HOUR0 + 300, 20.0)])
        self.assertEqual(rollup(self.pk, "day", "20260105")["max"], 2588)
        self.assertEqual(rollup(self.pk, "month", "202601")["max"], 2588)
        self.assertEqual(violations(["orgchart"]), [])

    def test_out_of_order_samples_are_merged_in_time_order(self):
        store.record_readings(self.pk, [(HOUR0 + 60, 20.0)])
        store.record_readings(self.pk, [(HOUR0 + 30, 21.0), (HOUR0 + 90, 22.0)])
        samples = store.hour_samples(keys.temp_raw(self.pk, "2026010500"), store.sensors._utc(HOUR0))
        self.assertEqual([ts - HOUR0 for ts, _ in samples], [30, 60, 90])
        self.assertEqual(violations(["orgchart"]), [])

    def test_memory_per_sample_is_at_most_16_bytes(self):
        before = store.used_memory()
        written = sensorfeed.feed(self.pk, HOUR0, 2, 6, random.Random(1))
        grown = store.used_memory() - before
        self.assertEqual(written, 28_800)
        self.assertLess(grown / written, 16, f"{grown / written:.2f} bytes per sample")

    def test_charts_read_one_key_per_bucket_whatever_the_samples(self):
        sensorfeed.feed(self.pk, HOUR0, 40, 60, random.Random(1))
        latest = client().hgetall(keys.temp_latest(self.pk))
        with self.assertCommands(25 + 30 + 12):
            charts = store.sensor_charts(self.pk, latest)
        self.assertEqual(charts.keys_read, 67)
        self.assertEqual(len(charts.days), 30)
        self.assertEqual(len(charts.raw), 24 * 60)
        self.assertEqual(len(charts.months), 3)  # November, December and January
        dense = location("Dense")
        sensorfeed.feed(dense, HOUR0, 2, 1, random.Random(2))  # six times the samples per bucket
        latest = client().hgetall(keys.temp_latest(dense))
        with self.assertCommands(67):
            store.sensor_charts(dense, latest)


class IngestCommandTest(RedisTestCase):
    def test_ingest_command_feeds_every_location_and_measures(self):
        a, b = location("Seattle"), location("Austin")
        out = StringIO()
        call_command("ingest_temperatures", "--days", "0.5", "--interval", "60", "--measure", stdout=out)
        self.assertRegex(out.getvalue(), r"Ingested 14\d\d samples for 2 location\(s\)\.")
        self.assertIn("bytes per sample", out.getvalue())
        for pk in (a, b):
            self.assertTrue(client().exists(keys.temp_latest(pk)))
        out = StringIO()
        call_command("ingest_temperatures", "--location", str(b), "--days", "0.01", stdout=out)
        self.assertIn("for 1 location(s)", out.getvalue())


class SeederTest(RedisTestCase):
    def test_demo_seed_is_deterministic_and_consistent(self):
        from config import seeding
        from orgchart.seeds import seed

        written = seed(seeding.context("orgchart", "demo"))
        self.assertGreater(written, 300_000)
        self.assertEqual(client().zcard(keys.employee_names()), 200)
        self.assertEqual(client().hlen(keys.location_by_name()), 3)
        self.assertEqual(violations(["orgchart"]), [])
        from config.keyspace import keyspace

        unregistered = [k for k in client().scan_iter("orgchart:*", count=1000) if keyspace.match(k) is None]
        self.assertEqual(unregistered, [])
        names = client().zrange(keys.employee_names(), 0, 9)
        client().flushdb()
        seed(seeding.context("orgchart", "demo"))
        self.assertEqual(client().zrange(keys.employee_names(), 0, 9), names)
