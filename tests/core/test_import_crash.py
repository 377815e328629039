"""A replacing import stopped at any point of its run (SIGKILL, SIGTERM, a Redis that stops
answering) ends, after ``import_data --recover``, with exactly the old data or exactly the new,
every invariant holding. The import runs in a process of its own (tests/core/import_driver.py)
against a real Redis; the test compares exports of the app, byte for byte."""

import json
import os
import signal
import stat
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import redis
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import override_settings, tag

from config.exchange import files, journal, runner
from config.exchange import store as exchange_store
from config.invariants import violations
from config.redis import client
from tests.base import RedisTestCase, files_of, temporary_folder
from tests.core.test_plumbing import ScratchServer


def drained(probe: redis.Redis, started_after: int) -> None:
    """Return once the server has closed the connections of a process that ended while it was
    paused (the commands they had sent run first): a recovery then comes after them."""
    for _ in range(500):
        probe.close()  # a new connection: its id is past theirs
        ours = probe.client_id()
        if not [c for c in probe.client_list() if started_after < int(c["id"]) < ours]:
            return
        time.sleep(0.01)
    raise AssertionError("the ended process's connections stayed open")


def new_data(old: Path, new: Path) -> None:
    """A different CMS export: the posts with odd ids, retitled, and their comments only."""
    new.mkdir(parents=True)
    posts = [json.loads(line) for line in (old / "posts.jsonl").read_text().splitlines()]
    kept = [{**post, "title": f"{post['title']} (new)"} for post in posts if post["id"] % 2]
    ids = {post["id"] for post in kept}
    comments = [json.loads(line) for line in (old / "comments.jsonl").read_text().splitlines()]
    comments = [comment for comment in comments if comment["post"] in ids]
    files.write_lines(new / "posts.jsonl", kept)
    files.write_lines(new / "comments.jsonl", comments)
    manifest = json.loads((old / "manifest.json").read_text())
    files.write_manifest(new, "cms", {"posts": len(kept), "comments": len(comments)}, manifest["counters"])


@tag("slow")
class CrashSafeReplaceTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.base = temporary_folder(self)
        self.var = self.base / "var"
        self.var.mkdir()
        self.enterContext(override_settings(VAR_DIR=self.var))
        call_command("seed", "--scale", "demo", "--only", "cms", stdout=StringIO(), stderr=StringIO())
        self.old = self.export("old")
        new_data(self.old / "cms", self.base / "incoming" / "cms")
        self.incoming = self.base / "incoming"

    def export(self, name: str) -> Path:
        call_command("export_data", "--only", "cms", str(self.base / name), stdout=StringIO(), stderr=StringIO())
        return self.base / name

    def now(self) -> dict:
        """The CMS as an export of it now, file by file."""
        folder = self.export(f"now-{len(list(self.base.iterdir()))}")
        return files_of(folder)

    def drive(self, *stop: str, redis_url: str | None = None, timeout: float | None = None, **popen):
        env = {
            **os.environ,
            "REDIS_URL": redis_url or settings.REDIS_URL,
            "VAR_DIR": str(self.var),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        if timeout:
            env["REDIS_SOCKET_TIMEOUT"] = str(timeout)
        command = [sys.executable, "-m", "tests.core.import_driver", *stop, "--"]
        command += [str(self.incoming), "--only", "cms", "--replace", "-v", "0"]
        return subprocess.Popen(command, cwd=settings.BASE_DIR, env=env, text=True, **popen)

    def recover(self, *app: str) -> str:
        out = StringIO()
        call_command("import_data", "--recover", *app, stdout=out, stderr=StringIO())
        return out.getvalue()

    def test_killed_at_any_point_then_recovered_holds_the_old_or_the_new_data(self):
        old = self.now()
        cases = [
            (("kill-at", journal.STAGED), "old", False),
            (("kill-at", journal.BACKED_UP), "old", False),
            (("kill-at", journal.WRITING), "old", True),
            (("kill-after", "30"), "old", True),  # the posts' batch not yet written
            (("kill-after", "200"), "old", True),  # every post written, no comment yet
            (("fail-then-kill", "200", "400"), "old", True),  # killed while the old data was written back
            (("kill-at", journal.DONE), "new", False),
        ]
        new = None
        for stop, expected, touched in cases:
            with self.subTest(stop=stop):
                process = self.drive(*stop, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                _, err = process.communicate(timeout=120)
                self.assertEqual(process.returncode, -signal.SIGKILL, err)
                folder = self.var / "imports" / "cms"
                self.assertEqual(stat.S_IMODE(folder.stat().st_mode), 0o700)
                self.assertEqual(stat.S_IMODE(folder.parent.stat().st_mode), 0o700)
                if touched:
                    self.assertEqual(runner.interrupted(), ["cms"])
                    self.assertIn("no interrupted import", [inv.name for inv, _ in violations(["cms"])])
                    self.assertEqual(self.recover(), "cms: rolled back to the data it held before the import.\n")
                else:
                    self.assertEqual(runner.interrupted(), [])
                    self.assertEqual(self.recover("cms"), "nothing to recover\n")
                self.assertFalse(folder.exists(), "the journal stays after the recovery")
                self.assertEqual(violations(["cms"]), [])
                if expected == "old":
                    self.assertEqual(self.now(), old)
                else:
                    new = self.now()
                    self.assertNotEqual(new, old)
        self.assertEqual(new["cms/posts.jsonl"], (self.incoming / "cms" / "posts.jsonl").read_bytes())
        self.assertEqual(new["cms/comments.jsonl"], (self.incoming / "cms" / "comments.jsonl").read_bytes())
        self.assertEqual(self.recover(), "nothing to recover\n")

    def test_an_import_into_an_empty_app_killed_half_way_is_recovered_to_nothing(self):
        exchange_store.clear("cms")
        process = self.drive("kill-after", "200", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.assertEqual(process.wait(timeout=120), -signal.SIGKILL)
        self.assertEqual(runner.holding([runner.exchange_of("cms")]), [True])  # half written
        self.assertEqual(self.recover("cms"), "cms: rolled back to the data it held before the import.\n")
        self.assertEqual(list(client().scan_iter("cms:*")), [])

    def test_a_merge_replaces_the_posts_it_holds_and_keeps_the_others(self):
        old = self.now()
        out = StringIO()
        call_command("import_data", str(self.incoming), "--only", "cms", "--merge", stdout=out, stderr=StringIO())
        self.assertIn("cms: imported 50 posts", out.getvalue())
        merged = self.now()
        incoming = (self.incoming / "cms" / "posts.jsonl").read_bytes().splitlines()
        retitled = {json.loads(line)["id"]: line for line in incoming}
        expected = [retitled.get(json.loads(line)["id"], line) for line in old["cms/posts.jsonl"].splitlines()]
        self.assertEqual(merged["cms/posts.jsonl"].splitlines(), expected)
        self.assertEqual(len(expected), 100)
        self.assertEqual(merged["cms/comments.jsonl"], old["cms/comments.jsonl"])
        self.assertEqual(violations(["cms"]), [])

    def test_the_dashboard_shows_an_interrupted_import_until_it_is_recovered(self):
        process = self.drive("kill-at", journal.WRITING, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        process.wait(timeout=120)
        self.client.force_login(self.make_staff("ann", role="viewer"))
        with self.assertRoundTrips(1):  # the home page's own: the banner reads files, not Redis
            page = self.client.get("/")
        self.assertContains(page, "An import of <strong>cms</strong> was interrupted")
        self.assertContains(page, "<code>python manage.py import_data --recover cms</code>", html=True)
        with self.assertRaisesMessage(CommandError, "an earlier import of The CMS was interrupted"):
            call_command("import_data", str(self.incoming), "--only", "cms", "--replace", stdout=StringIO())
        self.recover("cms")
        self.assertNotContains(self.client.get("/"), "was interrupted")

    def test_sigterm_and_sigint_roll_back_and_exit_non_zero(self):
        old = self.now()
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        for number in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=number.name):
                process = self.drive("pause-after", "200", **pipes)
                self.assertEqual(process.stdout.readline(), "paused\n")
                self.assertEqual(journal.Journal("cms").step(), journal.WRITING)
                self.assertEqual(runner.interrupted(), [], "a running import is not interrupted")
                with self.assertRaisesMessage(CommandError, "an import of cms is under way in another process"):
                    call_command("import_data", str(self.incoming), "--only", "cms", "--replace", stdout=StringIO())
                process.send_signal(number)
                out, err = process.communicate(timeout=120)
                self.assertEqual(process.returncode, 128 + number, out + err)
                self.assertIn(f"cms: stopped by {number.name}: the import was rolled back", err)
                self.assertFalse((self.var / "imports" / "cms").exists())
                self.assertEqual(self.now(), old)
                self.assertEqual(violations(["cms"]), [])

    def test_a_paused_redis_keeps_the_journal_and_recover_puts_the_old_data_back(self):
        scratch = ScratchServer()
        self.addCleanup(scratch.close)
        with scratch.settings():
            call_command("import_data", str(self.old), "--only", "cms", stdout=StringIO(), stderr=StringIO())
            old = self.now()
            probe = redis.Redis(unix_socket_path=str(scratch.server.socket), socket_timeout=5)
            started_after = probe.client_id()
            process = self.drive(
                "pause-after", "200", redis_url=scratch.server.url, timeout=0.5,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )  # fmt: skip
            self.assertEqual(process.stdout.readline(), "paused\n")
            pid = scratch.server.pid()
            os.kill(pid, signal.SIGSTOP)
            try:
                out, err = process.communicate("go\n", timeout=120)
            finally:
                os.kill(pid, signal.SIGCONT)
            drained(probe, started_after)
            self.assertEqual(process.returncode, 1, out + err)
            self.assertIn("putting the previous data back did not complete", err)
            self.assertIn("run `python manage.py import_data --recover cms`", err)
            self.assertEqual(journal.Journal("cms").step(), journal.ROLLING_BACK)
            self.assertEqual(runner.interrupted(), ["cms"])
            self.assertEqual(self.recover("cms"), "cms: rolled back to the data it held before the import.\n")
            self.assertEqual(self.now(), old)
            self.assertEqual(violations(["cms"]), [])
