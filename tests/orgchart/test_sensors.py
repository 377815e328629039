import random
import re
from array import array
from io import StringIO

from django.core.management import call_command
from django.test import tag

from config.invariants import violations
from config.redis import client, raw_client
from orgchart import charts, keys, sensorfeed, store
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

    def test_an_append_is_one_round_trip_of_calls_with_the_hours_five_keys(self):
        store.record_readings(self.pk, [(HOUR0 - 60, 19.0)])  # the script is loaded
        with self.assertRoundTrips(1) as trace:
            store.record_readings(self.pk, [(HOUR0 + 10, 20.5), (HOUR0 + 3600, 19.0), (HOUR0 + 7200, 18.0)])
        calls = trace.round_trips[0].commands
        self.assertEqual([c.name for c in calls], ["EVALSHA"] * 3)
        self.assertEqual(list(calls[0].keys), store.sensors._Keys(self.pk)(HOUR0)[:5])
        self.assertEqual([len(c.keys) for c in calls], [5, 5, 5])

    def test_a_late_hour_is_sent_again_with_every_key_it_may_touch(self):
        store.record_readings(self.pk, [(HOUR0 + 60, 20.0), (HOUR0 + 3660, 21.0)])
        with self.assertRoundTrips(2) as trace:
            stored = store.record_readings(self.pk, [(HOUR0 + 30, 25.0), (HOUR0 + 7200, 22.0)])
        self.assertEqual(stored, 2)
        first, again = trace.round_trips
        self.assertEqual([len(c.keys) for c in first.commands], [5, 5])
        (late,) = again.commands  # the first hour asked for every key; the third was appended
        self.assertEqual(list(late.keys), store.sensors._Keys(self.pk)(HOUR0))
        self.assertEqual(rollup(self.pk, "day", "20260105"), {"count": 4, "sum": 8800, "min": 2000, "max": 2500})
        self.assertEqual(violations(["orgchart"]), [])

    def test_many_round_trips_write_what_one_would(self):
        readings = [(HOUR0 + 60 * i, 20 + (i % 11) / 10) for i in range(60 * 30)]  # 30 hours
        other = location("Austin")
        self.assertEqual(store.record_readings(self.pk, readings), 1800)
        self.assertEqual(store.record_readings(other, readings, batch_hours=4), 1800)  # 8 round trips
        for period, stamp in (("hour", "2026010512"), ("day", "20260106"), ("month", "202601")):
            self.assertEqual(rollup(self.pk, period, stamp), rollup(other, period, stamp))
        self.assertEqual(violations(["orgchart"]), [])

    def test_columns_write_what_the_same_readings_as_pairs_write(self):
        # Rising times (cut at the hours) and, second, a late and repeated second (grouped one by one).
        first = [(HOUR0 + 7 * i, round(19 + (i % 13) / 7, 2)) for i in range(1500)]
        late = [(HOUR0 + 3600 + 5, 30.0), (HOUR0 + 14, -4.5), (HOUR0 + 14, 25.25)]
        other = location("Austin")
        for batch in (first, late):
            pairs = store.record_readings(self.pk, batch)
            times, degrees = [ts for ts, _ in batch], [value for _, value in batch]
            self.assertEqual(store.record_samples(other, times, degrees), pairs)
        for period, stamp in (("hour", "2026010500"), ("hour", "2026010502"), ("day", "20260105"), ("month", "202601")):
            self.assertEqual(rollup(other, period, stamp), rollup(self.pk, period, stamp))
        raw = raw_client()
        for hour in ("2026010500", "2026010501", "2026010502"):
            self.assertEqual(raw.get(keys.temp_raw(other, hour)), raw.get(keys.temp_raw(self.pk, hour)))
        self.assertEqual(violations(["orgchart"]), [])

    def test_hundredths_in_an_array_write_what_the_same_degrees_write(self):
        # The benchmark's bulk feed: both columns arrays of integers, passed through as they are.
        readings = [(HOUR0 + 7 * i, round(19 + (i % 13) / 7 - (i % 5) * 9.3, 2)) for i in range(1500)]
        times, degrees = [ts for ts, _ in readings], [value for _, value in readings]
        hundredths = array("q", [round(value * 100) for value in degrees])
        other = location("Austin")
        self.assertEqual(store.record_samples(self.pk, times, degrees), 1500)
        with self.assertRoundTrips(1):  # the hours of one batch: one pipelined round trip, as from degrees
            self.assertEqual(store.record_hundredths(other, array("q", times), hundredths), 1500)
        raw = raw_client()
        for hour in ("2026010500", "2026010501", "2026010502"):
            self.assertEqual(raw.get(keys.temp_raw(other, hour)), raw.get(keys.temp_raw(self.pk, hour)))
        for period, stamp in (("hour", "2026010501"), ("day", "20260105"), ("month", "202601")):
            self.assertEqual(rollup(other, period, stamp), rollup(self.pk, period, stamp))
        self.assertEqual(violations(["orgchart"]), [])
        with self.assertRaisesMessage(ValueError, "out of range"):
            store.record_hundredths(other, array("q", [HOUR0 + 9000]), array("q", [40000]))
        with self.assertRaisesMessage(ValueError, "1 times for 2 temperatures"):
            store.record_hundredths(other, [HOUR0], [1, 2])

    def test_columns_of_two_lengths_are_refused_before_anything_is_written(self):
        with self.assertRoundTrips(0), self.assertRaisesMessage(ValueError, "2 times for 1 temperatures"):
            store.record_samples(self.pk, [HOUR0, HOUR0 + 6], [20.0])
        with self.assertRaisesMessage(ValueError, "out of range"):
            store.record_samples(self.pk, [HOUR0, HOUR0 + 6], [20.0, 400.0])
        self.assertFalse(client().exists(keys.temp_raw(self.pk, "2026010500")))

    def test_input_no_reading_can_be_is_refused_before_anything_is_written(self):
        for seconds, degrees in (
            ([HOUR0, float("nan")], [20.0, 21.0]),  # a time that is not a number
            ([HOUR0, HOUR0 + 6], [20.0, float("inf")]),
            ([HOUR0, HOUR0 + 6], [20.0, 1e300]),  # no wrap-around to a plausible reading
            ([HOUR0, 10**30], [20.0, 21.0]),
            ([HOUR0, HOUR0 + 6], [20.0, "warm"]),
        ):
            with self.subTest(times=seconds, degrees=degrees), self.assertRoundTrips(0), self.assertRaises(ValueError):
                store.record_samples(self.pk, seconds, degrees)
        with self.assertRoundTrips(0), self.assertRaisesMessage(ValueError, "out of range"):
            store.record_hundredths(self.pk, [HOUR0], [10**30])
        self.assertFalse(client().exists(keys.temp_raw(self.pk, "2026010500")))

    def test_a_time_with_a_fraction_is_its_whole_second(self):
        self.assertEqual(store.record_samples(self.pk, [HOUR0 + 10.9, HOUR0 + 11.2], [20.0, 21.0]), 2)
        samples = store.hour_samples(keys.temp_raw(self.pk, "2026010500"), store.sensors._utc(HOUR0))
        self.assertEqual([(ts - HOUR0, value) for ts, value in samples], [(10, 2000), (11, 2100)])

    def test_the_hours_are_packed_as_each_sample_packed_alone(self):
        # The whole-column packing against the record format, one sample at a time, the last of a
        # second winning: columns in any order with seconds given twice, and strictly rising ones
        # (a feed, the generator), as lists and as arrays, over hours across a day and a month.
        rng = random.Random(7)
        month_end = 1769817600  # 2026-01-31 00:00 UTC
        shuffled = [month_end + rng.randrange(-7200, 86400 + 7200) for _ in range(5000)]
        rising = sorted(set(shuffled))
        for times in (shuffled, rising):
            values = [rng.randrange(-32767, 32768) for _ in times]
            by_hour: dict[int, dict[int, int]] = {}
            for ts, value in zip(times, values):
                by_hour.setdefault(ts - ts % 3600, {})[ts % 3600] = value
            expected = []
            for start in sorted(by_hour):
                samples = sorted(by_hour[start].items())
                packed = b"".join(store.sensors.RECORD.pack(sec, value + 32768) for sec, value in samples)
                kept = [value for _, value in samples]
                expected.append((start, packed, len(kept), sum(kept), min(kept), max(kept)))
            with self.subTest(rising=times is rising):
                self.assertEqual(len(expected), 28)
                self.assertEqual(store.sensors._hours(times, values), expected)
                self.assertEqual(store.sensors._hours(array("q", times), array("q", values)), expected)
        self.assertEqual(store.sensors._hours([], []), [])

    def test_an_append_names_the_keys_of_every_key_list(self):
        names = store.sensors._Keys(self.pk)
        month_end = 1769817600  # 2026-01-31 00:00 UTC: its hours, then February's first
        for hour_start in range(month_end - 3600, month_end + 26 * 3600, 3600):
            self.assertEqual(names.appending(hour_start), store.sensors._Keys(self.pk)(hour_start)[:5])

    def test_a_server_that_lost_the_script_gets_it_again(self):
        store.record_readings(self.pk, [(HOUR0 + 60, 20.0)])
        client().script_flush()
        self.assertEqual(store.record_readings(self.pk, [(HOUR0 + 120, 21.0), (HOUR0 + 3660, 22.0)]), 2)
        self.assertEqual(rollup(self.pk, "day", "20260105")["count"], 3)

    def test_memory_per_sample_is_at_most_16_bytes(self):
        before = store.used_memory()
        written = sensorfeed.feed(self.pk, HOUR0, 2, 6, random.Random(1))
        grown = store.used_memory() - before
        self.assertEqual(written, 28_800)
        self.assertLess(grown / written, 16, f"{grown / written:.2f} bytes per sample")

    def test_charts_read_one_rollup_per_bucket_whatever_the_samples(self):
        sensorfeed.feed(self.pk, HOUR0, 40, 60, random.Random(1))
        latest = client().hgetall(keys.temp_latest(self.pk))
        store.load_scripts()
        with self.assertRoundTrips(1), self.assertCommands(1) as trace:
            charts = store.sensor_charts(self.pk, latest)
        (read,) = trace.round_trips[0].commands  # one script call reading the 66 rollup hashes
        self.assertEqual(read.name, "EVALSHA")
        self.assertEqual(len(read.keys), 24 + 30 + 12)
        self.assertTrue(all(":temp:raw:" not in key for key in read.keys))  # no raw bucket read
        self.assertEqual(charts.keys_read, 66)
        self.assertEqual((len(charts.hours), len(charts.days), len(charts.months)), (24, 30, 3))  # Nov, Dec, Jan
        self.assertEqual(sum(h.count for h in charts.hours), 24 * 60)
        dense = location("Dense")
        sensorfeed.feed(dense, HOUR0, 2, 1, random.Random(2))  # sixty times the samples per bucket
        latest = client().hgetall(keys.temp_latest(dense))
        with self.assertCommands(1) as trace:
            store.sensor_charts(dense, latest)
        self.assertEqual(len(trace.round_trips[0].commands[0].keys), 66)

    def test_a_years_monthly_rollups_in_two_small_round_trips(self):
        sensorfeed.feed(self.pk, HOUR0, 40, 60, random.Random(1))
        charts = store.sensor_charts(self.pk, client().hgetall(keys.temp_latest(self.pk)))
        store.load_scripts()
        with self.assertRoundTrips(2), self.assertCommands(2) as trace:
            months = store.monthly_rollups(self.pk)
        self.assertEqual(len(trace.round_trips[1].commands[0].keys), 12)  # the monthly hashes, nothing else
        self.assertEqual(months, charts.months)
        self.assertEqual(sum(m.count for m in months), 40 * 24 * 60)
        self.assertEqual(store.monthly_rollups(location("Empty")), [])


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


@tag("slow")
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


class ChartTest(RedisTestCase):
    """What the charts draw, from what Redis holds after the writes."""

    def setUp(self):
        super().setUp()
        self.pk = location("Oslo")

    def charts(self):
        return charts.location_charts(store.sensor_charts(self.pk, client().hgetall(keys.temp_latest(self.pk))))

    def svgs(self) -> list[str]:
        """The charts the location page draws, in order."""
        page = self.client.get(f"/orgchart/locations/{self.pk}/").content.decode()
        return re.findall(r"<svg.*?</svg>", page.split('id="redis-panel"')[0], re.S)

    def test_a_bar_per_hour_from_the_hourly_rollup(self):
        # Two hours: 20.00 and 22.00 °C, then 18.50 and 19.50 °C.
        readings = [(HOUR0 + 60, 20.0), (HOUR0 + 120, 22.0), (HOUR0 + 3660, 18.5), (HOUR0 + 3720, 19.5)]
        store.record_readings(self.pk, readings)
        self.assertEqual(rollup(self.pk, "hour", "2026010500"), {"count": 2, "sum": 4200, "min": 2000, "max": 2200})
        hours, days, months = self.charts()
        [svg] = self.svgs()  # the days and months have too few readings to draw
        titles = re.findall(r"<title>(.*?)</title>", svg)
        self.assertEqual(
            titles,
            [
                "2026-01-05 00:00: mean 21.00 °C, min 20.00 °C, max 22.00 °C, 2 samples",
                "2026-01-05 01:00: mean 19.00 °C, min 18.50 °C, max 19.50 °C, 2 samples",
            ],
        )
        self.assertNotIn("tabindex", svg)  # no bar is a tab stop: the values' table is the keyboard's way
        self.assertEqual(svg.count('role="img" aria-label="2026-01-05 0'), 2)  # each bar named by its values
        self.assertIn('viewBox="0 0 600 220"', svg)
        self.assertNotIn("width=", svg.split(">", 1)[0])  # no fixed size: it scales with its card
        self.assertIn(">°C</text>", svg)
        self.assertIn(">hour (UTC)</text>", svg)
        self.assertIn(">01:00</text>", svg)  # the last of the 24 slots is the newest reading's hour
        self.assertEqual((hours.filled, hours.slots), (2, 24))
        self.assertTrue(days.empty)  # one day of readings: too little to draw honestly
        self.assertEqual(days.empty_text, "Only 1 of these 30 days has readings so far: a chart needs 2.")
        self.assertEqual(months.empty_text, "Only 1 of these 12 months has readings so far: a chart needs 2.")

    def test_each_title_names_the_period_it_shows_from_the_readings_own_times(self):
        # Readings that stopped long ago: the titles name their own window, not "the last 24 hours".
        store.record_readings(self.pk, [(HOUR0 + 60, 20.0), (HOUR0 + 3660, 21.0)])
        hours, days, months = self.charts()
        self.assertEqual(hours.title, "Hourly mean, min and max, 2026-01-04 02:00 to 2026-01-05 01:00 UTC")
        self.assertEqual(days.title, "Daily mean, min and max, 2025-12-07 to 2026-01-05 (UTC days)")
        self.assertEqual(months.title, "Monthly mean, min and max, February 2025 to January 2026")
        page = self.client.get(f"/orgchart/locations/{self.pk}/").content.decode()
        self.assertIn(f"<h3>{hours.title}</h3>", page)
        self.assertNotIn("Last 24 hours", page)

    def test_the_values_come_as_a_table_behind_one_button_and_a_tap_readout(self):
        store.record_readings(self.pk, [(HOUR0 + 60, 20.0), (HOUR0 + 120, 22.0), (HOUR0 + 3660, 18.5)])
        page = self.client.get(f"/orgchart/locations/{self.pk}/").content.decode()
        self.assertIn('<output class="chart-readout muted" aria-live="polite">', page)
        rows = re.findall(r"<tr><td>([^<]+)</td>((?:<td class=\"num\">[^<]*</td>)+)</tr>", page)
        cells = [(when, re.findall(r">([^<]*)<", values)[::2]) for when, values in rows]
        self.assertEqual(
            cells,
            [
                ("2026-01-05 00:00", ["21.00", "20.00", "22.00", "2"]),
                ("2026-01-05 01:00", ["18.50", "18.50", "18.50", "1"]),
            ],
        )

    def test_the_y_axis_has_round_ticks_around_the_data(self):
        store.record_readings(self.pk, [(HOUR0 + 60, 19.2), (HOUR0 + 3660, 23.7)])
        svg = self.svgs()[0]
        ticks = re.findall(r'<text class="axis y"[^>]*>([^<]+)</text>', svg)
        self.assertEqual(ticks, ["19", "20", "21", "22", "23", "24"])

    def test_a_gap_breaks_the_line(self):
        store.record_readings(self.pk, [(HOUR0 + 60, 20.0), (HOUR0 + 3660, 21.0), (HOUR0 + 3 * 3600, 22.0)])
        path = re.search(r'class="mean-line" d="([^"]+)"', self.svgs()[0]).group(1)
        self.assertEqual([step[0] for step in path.split(" ") if step[0] in "ML"], ["M", "L", "M"])

    def test_the_page_shows_the_charts_or_says_why_not(self):
        store.record_readings(self.pk, [(HOUR0 + 60, 20.0)])
        page = self.client.get(f"/orgchart/locations/{self.pk}/").content.decode()
        self.assertIn("Only 1 of these 24 hours has readings so far: a chart needs 2.", page)
        self.assertNotIn("<svg", page.split('id="redis-panel"')[0])

    def test_the_demo_history_fills_every_bucket_of_the_30_day_and_12_month_charts(self):
        end = HOUR0 + 12 * 3600
        written = sensorfeed.history(self.pk, end, 2, 60, random.Random(3), past_days=400)
        self.assertEqual(written, 398 * 4 + 2 * 1440)
        hours, days, months = self.charts()
        self.assertEqual((hours.filled, days.filled, months.filled), (24, 30, 12))
        self.assertEqual(violations(["orgchart"]), [])
