"""The load test, run briefly: gunicorn on loopback, 16 signed-in clients, Redis killed and stopped mid-run."""

import re
from io import StringIO

from django.core.management import call_command
from django.test import SimpleTestCase

from config import loadtest
from config.loadtest import Ledger, Options, Report, forms, percentile


class LoadTestRunTest(SimpleTestCase):
    def test_a_short_run_through_a_kill_and_a_stop_loses_nothing_and_breaks_nothing(self):
        out = StringIO()
        port = loadtest.free_port()  # never a fixed one: another run may hold it
        args = ["--seconds", "7", "--clients", "16", "--port", str(port), "--kill-redis", "--stop-redis"]
        try:
            call_command("loadtest", *args, "--outage", "1", stdout=out, verbosity=0)
        except SystemExit:
            self.fail(f"the load test failed:\n{out.getvalue()}")
        text = out.getvalue()
        self.assertIn("PASS", text, text)
        self.assertIn("16 signed-in clients", text)
        self.assertIn(f"127.0.0.1:{port}", text)
        self.assertRegex(text, r"errors: 0, throughput: [\d.]+ req/s")
        self.assertRegex(text, r"latency: p50 [\d.]+ ms, p95 [\d.]+ ms, p99 [\d.]+ ms")
        acknowledged, checked, lost = map(
            int, re.search(r"acknowledged: (\d+); checked in Redis: (\d+) .*; lost: (\d+)", text).groups()
        )
        self.assertGreater(acknowledged, 0)
        self.assertGreater(checked, 0)
        self.assertEqual(lost, 0)
        self.assertRegex(text, r"  cms: \d+ requests, [1-9]\d* acknowledged writes")
        for kind in ("kill-redis", "stop-redis"):
            fault = re.search(rf"fault: {kind} .*: (\d+) requests got the 503 page, (\d+) served after", text)
            self.assertIsNotNone(fault, text)
            self.assertGreater(int(fault.group(1)), 0, "nobody met the outage")
            self.assertGreater(int(fault.group(2)), 0, "nothing served after Redis came back")
        survived = re.search(r"; (\d+) writes acknowledged over 1 s before the kill all survived", text)
        self.assertIsNotNone(survived, text)
        self.assertGreater(int(survived.group(1)), 0, "no write was old enough at the kill to prove durability")
        self.assertRegex(text, r"integrity: All \d+ invariants hold")
        self.assertIn("server log: 0 tracebacks", text)
        self.assertRegex(text, r"throughput at the p95 target \(10 ms\): [\d.]+ req/s, p95 (within|over) it")

    def test_a_ramp_reports_the_throughput_at_the_p95_target(self):
        out = StringIO()
        args = ["--seconds", "2", "--clients", "3", "--ramp", "--p95-target", "1000"]
        try:
            call_command("loadtest", *args, stdout=out, verbosity=0)
        except SystemExit:
            self.fail(f"the load test failed:\n{out.getvalue()}")
        text = out.getvalue()
        self.assertIn("PASS", text, text)
        steps = re.findall(r"ramp step: (\d+) clients, [\d.]+ req/s, p95 [\d.]+ ms", text)
        self.assertEqual(steps, ["1", "2", "3"])
        self.assertRegex(text, r"throughput at the p95 target \(1000 ms\): ([\d.]+ req/s with \d clients|no step)")
        self.assertIn("lost: 0", text)


class PiecesTest(SimpleTestCase):
    def test_a_form_is_read_as_a_browser_would_submit_it(self):
        html = """<form method="post" action="/x/"><input type="hidden" name="csrfmiddlewaretoken" value="t">
        <input name="title" value="A &amp; B"><textarea name="body">line</textarea>
        <select name="status"><option value="draft">D</option><option value="published" selected>P</option></select>
        <input type="checkbox" name="off"><input type="submit" name="go" value="Go"></form>"""
        (form,) = forms(html)
        self.assertEqual((form.action, form.method), ("/x/", "post"))
        self.assertEqual(
            form.fields, {"csrfmiddlewaretoken": "t", "title": "A & B", "body": "line", "status": "published"}
        )
        self.assertEqual(form.text_fields, ["title", "body"])
        self.assertEqual(form.choices["status"], ["draft", "published"])

    def test_a_delete_supersedes_what_it_deleted(self):
        ledger = Ledger()
        ledger.ack("cms", ("post", 1, 1), "created", lambda: True)
        ledger.ack("cms", ("post", 1, 2), "edited", lambda: True)
        ledger.ack("cms", ("post", 2, 1), "created", lambda: True)
        ledger.ack("cms", ("post", 1, "deleted"), "deleted", lambda: True, replaces=("post", 1))
        self.assertEqual(ledger.acknowledged["cms"], 4)
        self.assertEqual(sorted(k[1:] for k in ledger.expected), [("post", 1, "deleted"), ("post", 2, 1)])

    def test_a_lost_write_an_error_or_a_violation_fails_the_run(self):
        self.assertTrue(Report(Options(), requests=1).ok)
        self.assertFalse(Report(Options(), requests=1, lost=["cms: post 1"]).ok)
        self.assertFalse(Report(Options(), requests=1, errors=["GET /: 500"]).ok)
        self.assertFalse(Report(Options(), requests=1, violations=1).ok)
        self.assertFalse(Report(Options(), requests=0).ok)

    def test_the_throughput_at_the_target_is_the_best_step_within_it(self):
        report = Report(Options(p95_target_ms=10), steps=[(1, 50.0, 4.0), (2, 90.0, 8.0), (4, 120.0, 14.0)])
        self.assertEqual(report.at_target(), (2, 90.0, 8.0))
        self.assertIsNone(Report(Options(p95_target_ms=1), steps=[(1, 50.0, 4.0)]).at_target())

    def test_the_package_is_split_by_concern_into_short_modules(self):
        from pathlib import Path

        for module in Path(loadtest.__file__).parent.glob("*.py"):
            self.assertLess(len(module.read_text().splitlines()), 400, module.name)

    def test_percentiles(self):
        values = sorted(range(1, 101))
        self.assertEqual([percentile(values, p) for p in (0.5, 0.95, 0.99)], [50, 95, 99])

    def test_every_app_with_a_loadtest_module_registered_a_scenario(self):
        self.assertIn("cms", loadtest.registry.scenarios)
        self.assertIn("core", loadtest.registry.scenarios)
