"""The benchmark command: both sides agree before anything is timed, every operation is
reported, and the Redis side costs exactly the round trips its screens cost. No time is asserted."""

import json
import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import CommandError, call_command

from config.benchmark import runner, sqlside, suite
from config.redis import client
from tests.base import RedisTestCase

OPERATIONS = {
    "1": "product list by average rating, with counts",
    "2": "product detail with its 3 newest reviews",
    "3": "products of one type (phone) with its fields",
    "4": "students in both of two courses",
    "5": "courses of one instructor",
    "6": "post with its revision history page",
    "7a": "reports at depth 2 of the top manager",
    "7b": "whole subtree of the top manager",
    "8": "monthly average temperature over a year",
    "9": "add a review with all its derived data",
    "10": "enrol a student, within both bounds",
}
# (round trips, commands) of one run on the Redis side, MULTI and EXEC counted as commands.
EXPECTED = {
    "1": (1, 11),  # one MULTI/EXEC: ZCARD, SORT ... GET, ZCARD, the tag cloud, one SCARD per type (5)
    "2": (1, 1),  # one HGETALL: details, images, the aggregate and the 3 newest reviews are embedded
    "3": (1, 11),  # the list's transaction: a page of the type's creation index, its fields by SORT ... GET
    "4": (2, 12),  # MULTI, SINTERSTORE, EXPIRE, SORT, HMGET and SCARD per course, EXEC; HMGET per student shown (3)
    "5": (1, 2),  # HGETALL, and SORT ... BY nosort GET joining the courses taught with their fields
    "6": (1, 3),  # HMGET, ZCARD, ZREVRANGE in one pipeline
    "7a": (1, 1),  # one script walks the report sets down to the depth
    "7b": (1, 1),  # one script walks the whole subtree (within its budget), whatever the depth
    "8": (2, 70),  # the location's newest reading; then 24 hourly, 30 daily and 12 monthly rollups
    "9": (2, 2),  # a script that draws the id if the product exists; the script that writes everything
    "10": (1, 1),  # one EVALSHA: the script reads both bounds, writes both sides and the event
}
PAGES = {  # (app, kind): domain round trips of the whole page
    ("catalog", "list"): 1,
    ("catalog", "detail"): 1,
    ("cms", "list"): 1,
    ("cms", "detail"): 1,
    ("cms", "history"): 1,
    ("school", "list"): 2,
    ("school", "detail"): 1,
    ("orgchart", "list"): 2,
    ("orgchart", "detail"): 1,
    ("orgchart", "sensor"): 2,
}


class BenchmarkCommandTest(RedisTestCase):
    sign_in = False

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.out = StringIO()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.json"
            call_command("benchmark", "--tiny", "--json", str(path), stdout=cls.out)
            cls.figures = json.loads(path.read_text())
        cls.text = cls.out.getvalue()

    def test_both_sides_agreed_before_timing(self):
        self.assertIn("All operations answered alike on both sides.", self.text)
        self.assertEqual(self.figures["command"], "python manage.py benchmark --tiny")

    def test_report_names_every_operation(self):
        self.assertEqual({op["key"]: op["name"] for op in self.figures["operations"]}, OPERATIONS)
        for key, name in OPERATIONS.items():
            self.assertIn(f"| {key} | {name} |", self.text)

    def test_round_trips_and_commands_are_the_screens(self):
        counted = {op["key"]: (op["round_trips"], op["commands"]) for op in self.figures["operations"]}
        self.assertEqual(counted, EXPECTED)

    def test_both_sides_timed(self):
        for op in self.figures["operations"]:
            for side in ("redis", "sql"):
                self.assertGreaterEqual(op[side]["runs"], 2, op)
                self.assertGreater(op[side]["median_ms"], 0)
                self.assertGreaterEqual(op[side]["p95_ms"], op[side]["median_ms"])

    def test_seeding_throughput_and_memory_per_record(self):
        loads = {load["app"]: load for load in self.figures["loads"]["redis"]}
        self.assertEqual(list(loads), ["catalog", "cms", "orgchart", "sensor", "school"])
        records = self.figures["records"]
        self.assertEqual(loads["catalog"]["records"], records["products"] + records["reviews"])
        self.assertEqual(loads["sensor"]["records"], records["samples"])
        kinds = {kind for load in loads.values() for kind in load["per_record"]}
        self.assertLessEqual({"product", "review", "enrolment", "employee", "sample"}, kinds)
        for load in loads.values():
            self.assertGreater(load["seconds"], 0)
            self.assertTrue(all(value > 0 for value in load["per_record"].values()), load)
        self.assertIn("Redis writes/s", self.text)
        self.assertIn("product: ", self.text)

    def test_pages_through_the_test_client(self):
        counted = {(p["app"], p["kind"]): p["round_trips"] for p in self.figures["pages"]}
        self.assertEqual(counted, PAGES)
        for page in self.figures["pages"]:
            self.assertIn(f"`{page['path']}`", self.text)

    def test_scratch_redis_only(self):
        """The run used a server of its own: the Redis the clients point at afterwards holds nothing."""
        self.assertEqual(client().dbsize(), 0)


class CorrectnessCheckTest(RedisTestCase):
    sign_in = False

    def test_a_mismatch_stops_the_run_before_timing(self):
        timed = []
        ok = runner.Operation("1", "agrees", lambda n: (1, [2.0]), lambda n: (1, (2.0 + 1e-12,)))
        wrong = runner.Operation("2", "differs", lambda n: timed.append(n) or [1, 2], lambda n: [1, 3])
        with self.assertRaisesMessage(runner.Mismatch, "operation 2 (differs) differs"):
            runner.run([ok, wrong], runs=3, min_runs=1, budget=1.0)
        self.assertEqual(timed, [0])  # asked once for the check, never timed

    def test_a_write_is_checked_by_reading_back(self):
        op = runner.Operation("9", "write", lambda n: 1, lambda n: 1, check=lambda: ("after", "other"))
        with self.assertRaises(runner.Mismatch):
            runner.check(op)

    def test_an_unknown_scale_is_refused(self):
        with self.assertRaisesMessage(CommandError, "--scale"):
            call_command("benchmark", "--scale", "huge", stdout=StringIO(), stderr=StringIO())


class CorrectnessOnLoadedDataTest(RedisTestCase):
    """The check compares real answers: both sides loaded alike agree, and a row changed on one side is caught."""

    sign_in = False

    def test_loaded_sides_agree_and_a_changed_row_is_caught(self):
        with suite.prepared("tiny") as ready:
            ops = {op.key: op for op in ready.operations}
            for key in ("1", "2", "4", "7b", "8"):
                runner.check(ops[key])
            product = suite._detail_product(ready.data)
            ready.conn.execute(
                "DELETE FROM product_reviews WHERE id = (SELECT MAX(id) FROM product_reviews WHERE product_id = ?)",
                (product,),
            )
            with self.assertRaisesMessage(runner.Mismatch, "operation 2 (product detail"):
                runner.check(ops["2"])
            ready.conn.execute("DELETE FROM temperature_readings WHERE ts = (SELECT MAX(ts) FROM temperature_readings)")
            with self.assertRaisesMessage(runner.Mismatch, "operation 8 (monthly average"):
                runner.check(ops["8"])


class NormalizedSchemaTest(RedisTestCase):
    sign_in = False

    def test_tables_and_indexes(self):
        with tempfile.TemporaryDirectory() as tmp:
            conn = sqlside.connect(Path(tmp) / "s.sqlite3")
            names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
            conn.close()
        tables = {
            "products", "product_details", "product_images", "product_reviews",
            "posts", "revisions", "employees", "locations", "temperature_readings",
            "courses", "instructors", "courses_instructors", "students", "enrollments",
            "product_phone", "product_earbuds",
        }  # fmt: skip
        self.assertLessEqual(tables, names)
        self.assertLessEqual(
            {"product_reviews_newest", "product_reviews_rating", "employees_manager", "enrollments_student"}, names
        )
