"""The load test, run briefly: gunicorn on loopback, 16 signed-in clients, Redis killed and stopped mid-run."""

import json
import re
import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import CommandError, call_command
from django.test import SimpleTestCase, tag

from config import loadtest
from config.loadtest import Ledger, Options, Report, comparison, forms, percentile


def figures(steps, target: float) -> dict:
    """A run's JSON as ``loadtest --ramp --json`` writes it, with these (clients, req/s, p95 ms) steps."""
    within = [s for s in steps if s[2] <= target]
    best = max(within, key=lambda s: s[1]) if within else None
    options = {"clients": steps[-1][0], "seconds": 10.0, "workers": 2, "threads": 8, "scale": "demo",
               "appendfsync": "everysec", "ramp": True, "p95_target_ms": target}  # fmt: skip
    return {
        "date": "2026-11-23 14:00 UTC", "machine": "2 cores, x86_64, Linux", "options": options, "requests": 1000,
        "writes": 300, "errors": 0, "lost": 0, "throughput": 100.0,
        "latency_ms": {"p50": 2.0, "p95": steps[-1][2], "p99": 30.0},
        "steps": [{"clients": n, "throughput": rps, "p95_ms": p95} for n, rps, p95 in steps],
        "at_target": None if best is None else {"clients": best[0], "throughput": best[1], "p95_ms": best[2]},
        "ok": True,
    }  # fmt: skip


@tag("slow")
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
        self.assertRegex(
            text, r"  cms: \d+ requests, [1-9]\d* acknowledged writes; reads p50 [\d.]+ ms, p95 [\d.]+ ms; writes p50"
        )
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

    def test_a_run_on_a_cluster_through_a_killed_primary_loses_nothing_acknowledged_before_it(self):
        out = StringIO()
        args = ["--seconds", "8", "--clients", "8", "--cluster", "--kill-primary"]
        try:
            call_command("loadtest", *args, stdout=out, verbosity=0)
        except SystemExit:
            self.fail(f"the load test failed:\n{out.getvalue()}")
        text = out.getvalue()
        self.assertIn("PASS", text, text)
        self.assertRegex(text, r"errors: 0, throughput: [\d.]+ req/s")
        acknowledged, lost = map(int, re.search(r"acknowledged: (\d+); .*; lost: (\d+)", text).groups())
        self.assertGreater(acknowledged, 0)
        self.assertEqual(lost, 0)
        fault = re.search(r"fault: kill-primary .*: (\d+) requests got the 503 page, (\d+) served after", text)
        self.assertIsNotNone(fault, text)
        self.assertGreater(int(fault.group(2)), 0, "nothing served after the replica took over")
        survived = re.search(r"; (\d+) writes acknowledged over 1 s before the kill all survived", text)
        self.assertIsNotNone(survived, text)
        self.assertGreater(int(survived.group(1)), 0, "no write was old enough at the kill to prove it survived")
        self.assertRegex(text, r"integrity: All \d+ invariants hold")
        self.assertIn("server log: 0 tracebacks", text)

    def test_a_primary_is_killed_only_on_a_cluster_and_one_server_s_faults_only_on_one_server(self):
        for args, said in (
            (["--kill-primary"], "add --cluster"),
            (["--cluster", "--kill-redis"], "on a cluster the fault is --kill-primary"),
            (["--cluster", "--kill-primary", "--ramp"], "run it without a fault"),
        ):
            with self.subTest(args=args), self.assertRaisesMessage(CommandError, said):
                call_command("loadtest", "--seconds", "1", "--clients", "1", *args, stdout=StringIO())

    def test_a_ramp_reports_the_throughput_at_the_p95_target(self):
        out = StringIO()
        args = ["--seconds", "2", "--clients", "3", "--ramp", "--p95-target", "1000"]
        with tempfile.TemporaryDirectory() as tmp:
            baseline, written = Path(tmp) / "before.json", Path(tmp) / "after.json"
            before = figures([(1, 10.0, 50.0), (2, 16.0, 80.0), (3, 18.0, 120.0)], target=1000)
            baseline.write_text(json.dumps(before))
            try:
                call_command("loadtest", *args, "--json", str(written), "--baseline", str(baseline), stdout=out,
                             verbosity=0)  # fmt: skip
            except SystemExit:
                self.fail(f"the load test failed:\n{out.getvalue()}")
            after = json.loads(written.read_text())
        text = out.getvalue()
        self.assertIn("PASS", text, text)
        steps = re.findall(r"ramp step: (\d+) clients, [\d.]+ req/s, p95 [\d.]+ ms", text)
        self.assertEqual(steps, ["1", "2", "3"])
        self.assertRegex(text, r"throughput at the p95 target \(1000 ms\): ([\d.]+ req/s with \d clients|no step)")
        self.assertIn("lost: 0", text)
        self.assertEqual([step["clients"] for step in after["steps"]], [1, 2, 3])
        self.assertEqual(after["options"]["p95_target_ms"], 1000)
        self.assertTrue(after["ok"])
        self.assertEqual((after["errors"], after["lost"]), (0, 0))
        self.assertIn(f"against the baseline of {before['date']}", text)
        rows = re.findall(r"^\| (\d) \| ([\d.]+) \| ([\d.]+) \| [\d.]+ \| [\d.]+ \| [\d.]+× \|$", text, re.M)
        self.assertEqual(rows, [("1", "10.0", "50.0"), ("2", "16.0", "80.0"), ("3", "18.0", "120.0")])
        self.assertRegex(text, r"throughput at the p95 target \(1000 ms\): baseline 18.0 req/s with 3 clients; now ")


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

    def test_a_store_write_in_an_outage_is_unavailable_whatever_redis_error_it_meets(self):
        import random

        import redis

        from config.loadtest import Failed, Faults, Http, Stats, Unavailable
        from config.loadtest.scenarios import Scenario

        faults = Faults()
        user = Scenario(Http("127.0.0.1", 1, ("s", "x"), Stats(), faults), Ledger(), random.Random(1), 0)

        def fails(error):
            def write():
                raise error

            return write

        faults.open()  # a primary killed: until its replica is promoted the cluster says CLUSTERDOWN
        for error in (redis.ConnectionError("gone"), redis.exceptions.ClusterDownError("The cluster is down")):
            with self.assertRaises(Unavailable):
                user.direct(fails(error))
        faults.close()
        self.assertEqual((user.http.stats.unavailable, user.http.stats.errors), (2, []))
        with self.assertRaises(Failed):
            user.direct(fails(redis.exceptions.ClusterDownError("The cluster is down")))  # no fault: an error
        self.assertEqual(len(user.http.stats.errors), 1)

    def test_a_lost_write_an_error_or_a_violation_fails_the_run(self):
        self.assertTrue(Report(Options(), requests=1).ok)
        self.assertFalse(Report(Options(), requests=1, lost=["cms: post 1"]).ok)
        self.assertFalse(Report(Options(), requests=1, errors=["GET /: 500"]).ok)
        self.assertFalse(Report(Options(), requests=1, violations=1).ok)
        self.assertFalse(Report(Options(), requests=0).ok)

    def test_a_baseline_and_this_run_side_by_side(self):
        before = figures([(1, 100.0, 8.0), (2, 120.0, 12.0)], target=10)
        after = figures([(1, 150.0, 6.0), (2, 240.0, 9.0)], target=10)
        lines = comparison(before, after)
        self.assertEqual(lines[0], "against the baseline of 2026-11-23 14:00 UTC (2 cores, x86_64, Linux):")
        self.assertIn("| 1 | 100.0 | 8.0 | 150.0 | 6.0 | 1.50× |", lines)
        self.assertIn("| 2 | 120.0 | 12.0 | 240.0 | 9.0 | 2.00× |", lines)
        self.assertEqual(
            lines[-1],
            "throughput at the p95 target (10 ms): baseline 100.0 req/s with 1 clients; "
            "now 240.0 req/s with 2 clients (2.40×)",
        )
        self.assertFalse([line for line in lines if "NOTE" in line])

    def test_a_baseline_of_other_options_is_flagged(self):
        before = figures([(1, 100.0, 8.0)], target=10)
        after = figures([(1, 150.0, 6.0)], target=10)
        after["options"]["workers"] = 4
        self.assertIn("  NOTE: the runs differ in workers 2 → 4: compare like with like", comparison(before, after))

    def test_the_json_of_a_report(self):
        report = Report(Options(p95_target_ms=10, ramp=True), requests=300, seconds=3.0, latencies=[0.001] * 300,
                        steps=[(1, 50.0, 4.0), (2, 90.0, 8.0), (4, 120.0, 14.0)])  # fmt: skip
        data = report.as_json()
        self.assertEqual(data["at_target"], {"clients": 2, "throughput": 90.0, "p95_ms": 8.0})
        self.assertEqual(data["throughput"], 100.0)
        self.assertEqual(data["latency_ms"], {"p50": 1.0, "p95": 1.0, "p99": 1.0})
        self.assertEqual(comparison(data, data)[-1][-7:], "(1.00×)")

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
