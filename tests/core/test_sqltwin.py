"""The "In SQL" twin of every main screen: the statements the benchmark sends, the figures of its results file."""

import html
import json
import os
import re
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.test import SimpleTestCase
from django.urls import reverse

from cms import store as cms
from config import sqltwin
from config.activity import Actor
from config.benchmark.figures import merged_results
from tests.base import RedisTestCase, temporary_folder
from tests.catalog.helpers import make_product, review
from tests.orgchart import helpers as org
from tests.school import helpers as school

SECTION = re.compile(r'<section class="card sql-twin"[^>]*>(.*?)</section>', re.S)
OPERATION = re.compile(r'<div class="sql-twin-operation" data-operation="([^"]+)">(.*?)</div>', re.S)
STATEMENT = re.compile(r'<pre class="sql" data-side="(\w+)" tabindex="0"><code>(.*?)</code></pre>', re.S)
TABLE = re.compile(r'<table class="sql-figures" data-scale="(\w+)">\s*<caption>(.*?)</caption>(.*?)</table>', re.S)
ROW = re.compile(r'<tr data-side="(\w+)"><th scope="row">[^<]*</th><td class="num">([\d.]+)</td><td class="num">(\d+)')


def figures(key: str, scale: str) -> dict:
    """A results file's entry for one operation, with medians told apart by operation and scale."""
    base = (sorted(sqltwin.sql_texts()).index(key) + 1) * (10 if scale == "large" else 1)
    sides = {
        side: {"median_ms": base + n / 8, "statements": n, "sql": ["SELECT 1"]}
        for n, side in enumerate(("postgres", "dba", "orm"), 1)
    }
    return {"name": f"question {key}", "date": f"2026-01-0{1 + (scale == 'large')} 10:00 UTC",
            "command": f"python manage.py benchmark --scale {scale} <b>", "round_trips": 1,
            "sides": {"redis": {"median_ms": base / 2}, **sides}}  # fmt: skip


class ScreenTwinTest(RedisTestCase):
    """Each main screen, rendered: its twin collapsed, its statements the benchmark's, its figures the file's."""

    def setUp(self):
        super().setUp()
        results = temporary_folder(self) / "results.json"
        # Every operation measured at the demo scale, the product detail's alone at the large one.
        measured = {
            "demo": {key: figures(key, "demo") for key in sqltwin.sql_texts()},
            "large": {"2": figures("2", "large")},
        }
        results.write_text(json.dumps(measured))
        patcher = mock.patch.object(sqltwin, "RESULTS", results)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.measured = measured

    def screens(self) -> dict[str, str]:
        product = make_product()
        review(product, 4)
        course, student, instructor = school.course(), school.student(), school.instructor()
        post = cms.create_post({"title": "Hello", "body": "Body.", "author": "ann", "status": "draft"},
                               actor=Actor("ann"), comment="", at=1_767_600_000.0).id  # fmt: skip
        where = org.location("Lyon")
        employee = org.employee("Ann", location=where)
        by_pk = {"catalog:product_detail": product, "school:course_detail": course, "school:student_detail": student,
                 "school:instructor_detail": instructor, "cms:post_detail": post, "cms:post_history": post,
                 "orgchart:employee_detail": employee, "orgchart:location_detail": where}  # fmt: skip
        return {name: reverse(name, args=[by_pk[name]] if name in by_pk else []) for name in sqltwin.SCREENS}

    def test_every_main_screen_shows_its_twin_collapsed_with_the_benchmarks_sql_and_figures(self):
        texts = sqltwin.sql_texts()
        for name, url in self.screens().items():
            with self.subTest(name):
                page = self.client.get(url).content.decode()
                (section,) = SECTION.findall(page)
                self.assertIn("<details><summary>In SQL", section)  # one <details>, not open
                self.assertNotIn("<details open", section)
                self.assertNotIn("<b>", section)  # the file's text is escaped
                operations = OPERATION.findall(section)
                self.assertEqual([key for key, _ in operations], list(sqltwin.SCREENS[name]))
                self.assertTrue(operations)
                for key, body in operations:
                    shown = [(side, html.unescape(text)) for side, text in STATEMENT.findall(body)]
                    sent = [(side, text) for side in ("postgres", "dba") for text in texts[key][side]]
                    self.assertEqual(shown, sent, key)  # the exact text, every statement, escaped
                    for side, label in sqltwin.SQL_SIDES.items():
                        count = len(texts[key][side])
                        self.assertIn(
                            f"{label[0].upper()}{label[1:]}: {count} statement{'s' * (count > 1)}\n", _plain(body)
                        )
                    self.assertIn(f"Operation {key}: question {key}</h3>", body)
                    tables = {scale: (caption, rows) for scale, caption, rows in TABLE.findall(body)}
                    for scale, run in ((s, self.measured[s].get(key)) for s in sqltwin.SCALES):
                        if run is None:
                            self.assertNotIn(scale, tables)
                            self.assertIn(f"{scale.capitalize()} scale: not measured yet at this scale.", body)
                            continue
                        caption, rows = tables[scale]
                        self.assertIn(run["date"], caption)
                        self.assertIn("--scale " + scale + " &lt;b&gt;</code>", caption)  # escaped
                        sides = run["sides"]
                        self.assertEqual(
                            ROW.findall(rows),
                            [(side, f"{sides[side]['median_ms']:.3f}", str(sides[side].get("statements", 1)))
                             for side in sqltwin.TIMED_SIDES],
                        )  # fmt: skip

    def test_a_new_run_of_the_results_file_shows_at_once(self):
        url = reverse("school:course_list")
        self.assertIn("Operation 13: question 13</h3>", self.client.get(url).content.decode())
        results = Path(sqltwin.RESULTS)
        measured = json.loads(results.read_text())
        measured["demo"]["13"]["name"] = "question 13, measured again"
        results.write_text(json.dumps(measured))
        stat = results.stat()
        os.utime(results, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # a later write
        self.assertIn("Operation 13: question 13, measured again</h3>", self.client.get(url).content.decode())

    def test_the_twin_stays_off_other_screens_and_out_of_list_fragments(self):
        page = self.client.get(reverse("school:course_add")).content.decode()
        self.assertNotIn("sql-twin", page)
        fragment = self.client.get(reverse("school:course_list"), headers={"HX-Request": "true"})
        self.assertNotIn("sql-twin", fragment.content.decode())


class ResultsFileTest(SimpleTestCase):
    def test_the_shipped_figures_were_measured_on_the_sql_the_screens_show(self):
        """The shipped results file records what each SQL side sent when it was measured: the same text."""
        shipped = json.loads((Path(settings.BASE_DIR) / "docs" / "benchmark" / "results.json").read_text())
        self.assertIn("demo", shipped)
        texts = sqltwin.sql_texts()
        for scale, operations in shipped.items():
            for key, sides in texts.items():
                for side, statements in sides.items():
                    self.assertEqual(operations[key]["sides"][side]["sql"], list(statements), (scale, key, side))

    def test_a_run_of_some_operations_keeps_the_others_with_their_own_run(self):
        def run(date, keys, scale="demo"):
            ops = [{"key": k, "name": k, "round_trips": 1, "sides": {"redis": {"median_ms": 1.0, "sql": None},
                    "sqlite": {"median_ms": 2.0}}} for k in keys]  # fmt: skip
            return {"scale": scale, "date": date, "command": f"run {date}", "operations": ops}

        results = merged_results(run("first", ["1", "2"]), None)
        results = merged_results(run("second", ["2"]), results)
        results = merged_results(run("third", ["2"], "large"), results)
        self.assertEqual({k: v["date"] for k, v in results["demo"].items()}, {"1": "first", "2": "second"})
        self.assertEqual(list(results["large"]), ["2"])
        self.assertEqual(results["demo"]["1"]["sides"], {"redis": {"median_ms": 1.0}})  # SQLite's left to the tests


def _plain(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))
