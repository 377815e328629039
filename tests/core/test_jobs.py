"""The Import / export screens' background jobs: the job page in each state, who may see and move
a job, the import's refusals and failures as its outcome, a dead worker's job reaped and its
import recovered, unconfirmed uploads swept, exports prepared in the background; and, with a real
worker process, an import whose check takes as long as the test decides, its progress shown, and
a worker SIGKILLed mid-import (in its check pass, in its write pass, once it is done), after which
the app holds exactly its old data or exactly the new."""

from __future__ import annotations

import io
import os
import re
import signal
import stat
import subprocess
import sys
import time
import zipfile
from datetime import timedelta
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, TransactionTestCase, override_settings, tag
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from config.exchange import files, jobs, journal, runner, uploads
from config.invariants import violations
from config.models import ExchangeJob
from config.redis import client
from tests.base import RedisMixin, RedisTestCase, files_of, run_jobs, start_worker, temporary_folder

Phase = ExchangeJob.Phase


def location(pk: int) -> str:
    return f"orgchart:{{orgchart}}:location:{pk}"


def locations(first: int, last: int) -> bytes:
    return b"".join(b'{"id": %d, "name": "Place %d"}\n' % (i, i) for i in range(first, last + 1))


def snapshot(prefix: str) -> dict:
    return {key: client().dump(key) for key in client().scan_iter(f"{prefix}*", count=1000)}


def exported(test) -> dict[str, bytes]:
    """The org chart as an export of it now, file by file: two compare whole."""
    folder = temporary_folder(test)
    runner.export("orgchart", folder)
    return files_of(folder)


def dead_pid() -> int:
    """The pid of a process that ran and is gone (reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


class JobScreens:
    """Upload and follow a job as the page does, for an administrator signed in as ``self.admin``."""

    def upload(self, content: bytes, name: str = "locations.jsonl", replace: bool = False, merge: bool = False):
        data = {"file": SimpleUploadedFile(name, content)}
        if replace:
            data["replace"] = "on"
        if merge:
            data["merge"] = "on"
        response = self.client.post("/exchange/orgchart/preview/", data)
        self.assertEqual(response.status_code, 303, response.content[:500])
        return response["Location"]

    def job_of(self, url: str) -> ExchangeJob:
        return ExchangeJob.objects.get(pk=url.rstrip("/").rsplit("/", 1)[1])

    def poll(self, url: str):
        """The page as htmx asks for it while the job runs: the status fragment alone."""
        return self.client.get(url, headers={"HX-Request": "true"})


class JobPageTest(JobScreens, RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.admin = self.make_staff("admin", is_superuser=True)
        self.client.force_login(self.admin)

    @tag("cluster")  # the queue is in the database: the same on a Redis Cluster
    def test_each_state_of_the_page(self):
        url = self.upload(locations(1, 3))
        job = self.job_of(url)

        # Queued, no worker yet: the page says so and keeps polling.
        page = self.client.get(url)
        self.assertContains(page, "Waiting for the background worker")
        self.assertContains(page, 'hx-trigger="every 1s"')
        self.assertContains(page, "<title>", html=False)

        # Running (this process as its worker): the file and the documents done, as a fragment.
        ExchangeJob.objects.filter(pk=job.pk).update(
            worker=jobs.worker_id(), step="check orgchart.locations", done=1500, total=3000
        )
        fragment = self.poll(url)
        self.assertNotContains(fragment, "<title>", html=False)
        self.assertContains(fragment, "Checking locations.jsonl: ")
        self.assertContains(fragment, '<span id="done">1500</span> of <span id="total">3000</span> documents')
        self.assertContains(fragment, '<progress max="3000" value="1500">')

        # Checked: the preview and its confirm; then imported: the counts, and no more polling.
        ExchangeJob.objects.filter(pk=job.pk).update(worker="")
        run_jobs()
        page = self.client.get(url)
        self.assertContains(page, '<code>locations.jsonl</code></td><td class="num">3</td>', html=False)
        self.assertContains(page, "Confirm the import")
        self.assertEqual(client().exists(location(1)), 0, "the check wrote something")
        self.assertEqual(self.client.post(url + "confirm/").status_code, 303)
        self.assertContains(self.client.get(url), "Importing")
        run_jobs()
        page = self.poll(url)
        self.assertContains(page, "Imported 3 locations.")
        self.assertNotContains(page, 'hx-trigger="every')
        self.assertEqual(client().hget(location(3), "name"), "Place 3")
        self.assertIsNone(uploads.folder_of(job.folder), "the upload outlived its import")
        # The app's screen links to it, for its owner only.
        self.assertContains(self.client.get("/exchange/orgchart/"), f'<a href="{url}">', html=False)
        other = Client()
        other.force_login(self.make_staff("ada", is_superuser=True))
        self.assertNotContains(other.get("/exchange/orgchart/"), url)

    def test_refused_and_failed_outcomes(self):
        refused = self.upload(b'{"id": 1, "name": "Seattle"}\n{"id": 1, "name": "Austin"}\n')
        run_jobs()
        page = self.client.get(refused)
        self.assertContains(page, "Refused (1)")
        self.assertContains(page, "<td><code>locations.jsonl:2</code></td><td>id</td>", html=False)
        self.assertNotContains(page, "Confirm the import")
        self.assertIsNone(uploads.folder_of(self.job_of(refused).folder))

        # The import fails while writing: the reason is shown, and nothing of it is left.
        url = self.upload(locations(1, 3))
        run_jobs()
        self.client.post(url + "confirm/")
        with mock.patch("config.exchange.runner._write", side_effect=ConnectionError("Redis went away")):
            run_jobs()
        page = self.client.get(url)
        self.assertContains(page, "Failed")
        self.assertContains(page, "ConnectionError: Redis went away. Nothing of the import was kept")
        self.assertEqual(self.job_of(url).phase, Phase.FAILED)
        self.assertEqual(DBTaskResult.objects.get(pk=self.job_of(url).task).status, TaskResultStatus.FAILED)
        self.assertEqual(snapshot("orgchart:"), {})

    @tag("cluster")  # the merge's check reads the ids the app holds: every node's
    def test_a_merge_flows_from_the_upload_through_the_check_into_the_import(self):
        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        store.save_location(None, "Austin", actor=store.Actor("t"))
        employee = b'{"id": 1, "name": "Cy", "title": "", "manager": null, "location": 1}\n'
        # Without merge the file names a location it does not hold; the merge's check reads the app's.
        alone = self.upload(employee, name="employees.jsonl", replace=True)
        run_jobs()
        self.assertContains(self.client.get(alone), "no location has id 1")
        merged = self.upload(employee, name="employees.jsonl", merge=True)
        run_jobs()
        self.assertTrue(self.job_of(merged).merge)
        page = self.client.get(merged)
        self.assertContains(page, "merged into the data the app holds")
        self.assertContains(page, "nothing is deleted")
        self.assertContains(page, '<button type="submit">Confirm the import and merge</button>', html=True)
        self.assertNotContains(page, 'class="danger"')

        url = self.upload(b'{"id": 2, "name": "Austin TX"}\n{"id": 5, "name": "Denver"}\n', merge=True)
        run_jobs()
        row = '<tr id="change-locations"><td><code>locations.jsonl</code></td>'
        row += "".join(f'<td class="num">{n}</td>' for n in (2, 1, 1, 0)) + "</tr>"
        self.assertContains(self.client.get(url), row, html=True)
        self.client.post(url + "confirm/")
        run_jobs()
        self.assertContains(self.client.get(url), "Imported 2 locations.")
        names = {pk: client().hget(location(pk), "name") for pk in (1, 2, 5)}
        self.assertEqual(names, {1: "Seattle", 2: "Austin TX", 5: "Denver"})
        self.assertEqual(violations(["orgchart"]), [])

    def test_the_imports_refusals_and_a_failed_rollback_are_its_outcome(self):
        """Each of the runner's refusals ends the job refused, with its message on the page and
        nothing written; a rollback that cannot reach Redis ends it failed, naming the recovery."""
        from contextlib import nullcontext

        from orgchart import store

        self.enterContext(override_settings(VAR_DIR=temporary_folder(self)))

        def attempt(during, replace=True):
            url = self.upload(locations(1, 2), replace=replace)
            run_jobs()
            self.assertEqual(self.client.post(url + "confirm/").status_code, 303)
            with during:
                run_jobs()
            return url, self.client.get(url)

        # The app gained data between the check and the confirm.
        url = self.upload(locations(1, 2))
        run_jobs()
        store.save_location(None, "Seattle Waterfront Research Campus", actor=store.Actor("t"))
        self.client.post(url + "confirm/")
        run_jobs()
        self.assertEqual(self.job_of(url).phase, Phase.REFUSED)
        self.assertContains(self.client.get(url), "already holds data: importing would mix two datasets")
        before = exported(self)

        with journal.Journal("orgchart").held():  # another process imports into the app now
            url, page = attempt(nullcontext())
        self.assertContains(page, "an import of orgchart is under way in another process")

        kept = journal.Journal("orgchart")  # an earlier import was killed while writing
        with kept.held():
            kept.begin()
            kept.record(journal.WRITING)
        url, page = attempt(nullcontext())
        self.assertContains(page, "an earlier import of The org chart was interrupted: run ")
        self.assertContains(page, "An import of <strong>orgchart</strong> was interrupted")  # the banner
        kept.close()

        # The data the app holds would not import again (a line over the limit): no backup, no replace.
        url, page = attempt(mock.patch.object(files, "MAX_LINE", 40))
        self.assertContains(page, "cannot be kept as a backup")
        self.assertContains(page, "nothing was replaced")
        for refused in ExchangeJob.objects.filter(phase=Phase.REFUSED):
            self.assertContains(self.client.get(f"/exchange/orgchart/jobs/{refused.pk}/"), "<h2>Refused</h2>")
        self.assertEqual(ExchangeJob.objects.filter(phase=Phase.REFUSED).count(), 4)
        self.assertEqual(exported(self), before)

        # The write fails, and so does writing the old data back: the journal stays for the recovery.
        url, page = attempt(mock.patch("config.exchange.runner._write", side_effect=ConnectionError("gone")))
        self.assertEqual(self.job_of(url).phase, Phase.FAILED)
        self.assertContains(page, "<h2>Failed</h2>", html=True)
        self.assertContains(page, "putting the previous data back did not complete (ConnectionError: gone)")
        self.assertContains(page, "run `python manage.py import_data --recover orgchart`")
        self.assertEqual(runner.interrupted(), ["orgchart"])
        self.assertEqual(runner.recover("orgchart"), ["orgchart"])
        self.assertEqual(exported(self), before)
        self.assertEqual(violations(["orgchart"]), [])

    def test_only_the_uploader_with_the_permission_signed_in_and_by_post(self):
        url = self.upload(locations(1, 2))
        run_jobs()
        other = Client()
        self.assertEqual(other.get(url).status_code, 302)  # to the sign-in page
        self.assertEqual(other.post(url + "confirm/").status_code, 302)
        other.force_login(self.make_staff("ed", role="editor"))
        self.assertEqual(other.get(url).status_code, 403)
        self.assertEqual(other.post(url + "confirm/").status_code, 403)
        other.force_login(self.make_staff("ada", is_superuser=True))
        self.assertEqual(other.get(url).status_code, 404)
        self.assertEqual(other.post(url + "confirm/").status_code, 404)
        self.assertRedirects(self.client.get(url + "confirm/"), url, fetch_redirect_response=False)  # no import
        strict = Client(enforce_csrf_checks=True)
        strict.force_login(self.admin)
        self.assertEqual(strict.post(url + "confirm/").status_code, 403)
        self.assertEqual(self.job_of(url).phase, Phase.CHECKED, "a refused confirm moved the job")

    def test_a_second_confirm_imports_nothing_more(self):
        url = self.upload(locations(1, 2))
        run_jobs()
        self.client.post(url + "confirm/")
        again = self.client.post(url + "confirm/", follow=True)
        self.assertContains(again, "expired or was already imported")
        self.assertEqual(DBTaskResult.objects.filter(task_path__endswith="import_upload").count(), 1)

    def test_a_running_job_whose_worker_died_is_failed_and_its_import_recovered(self):
        url = self.upload(locations(1, 2))
        run_jobs()
        self.client.post(url + "confirm/")
        job = self.job_of(url)
        # Taken by a worker process that then died: its pid runs no more.
        ExchangeJob.objects.filter(pk=job.pk).update(worker=f"{jobs.worker_id().rpartition(':')[0]}:{dead_pid()}")
        DBTaskResult.objects.filter(pk=job.task).update(status=TaskResultStatus.RUNNING)
        with (
            mock.patch("config.exchange.runner.recover", wraps=runner.recover) as recover,
            self.assertLogs("config.exchange.jobs", "WARNING") as logged,
        ):
            page = self.client.get(url)
        self.assertIn("stopped before it ended", logged.output[0])
        recover.assert_called_once_with("orgchart")
        self.assertContains(page, "Failed")
        self.assertContains(page, "The worker running this import stopped before it ended.")
        self.assertEqual(DBTaskResult.objects.get(pk=job.task).status, TaskResultStatus.FAILED)
        self.assertIsNone(uploads.folder_of(job.folder))

        # A worker that lives (this process), or one on another host still heard from, is left alone.
        alive = self.job_of(self.upload(locations(1, 2)))
        ExchangeJob.objects.filter(pk=alive.pk).update(worker=jobs.worker_id())
        elsewhere = self.job_of(self.upload(locations(1, 2)))
        ExchangeJob.objects.filter(pk=elsewhere.pk).update(worker="another-host:1")
        self.assertEqual(jobs.reap(), [])
        # ... until the other host's worker has been silent too long.
        old = timezone.now() - timedelta(seconds=settings.EXCHANGE_WORKER_SILENCE + 1)
        ExchangeJob.objects.filter(pk=elsewhere.pk).update(heard=old)
        with self.assertLogs("config.exchange.jobs", "WARNING"):
            self.assertEqual([j.pk for j in jobs.reap()], [elsewhere.pk])
        self.assertEqual(self.job_of(url).phase, Phase.FAILED)

    def test_unconfirmed_uploads_are_swept_at_the_next_upload(self):
        url = self.upload(locations(1, 2))
        run_jobs()
        job = self.job_of(url)
        folder = uploads.folder_of(job.folder)
        self.assertEqual(stat.S_IMODE(folder.stat().st_mode), 0o700)
        self.assertEqual(stat.S_IMODE((folder / "locations.jsonl").stat().st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(folder.parent.stat().st_mode), 0o700)
        stray = uploads.new_folder()  # an upload whose request died before its job was made
        fresh = self.job_of(self.upload(locations(1, 2)))  # checked just now: kept
        run_jobs()

        past = time.time() - settings.EXCHANGE_UPLOAD_MINUTES * 60 - 1
        os.utime(stray, (past, past))
        ExchangeJob.objects.filter(pk=job.pk).update(
            ended=timezone.now() - timedelta(minutes=settings.EXCHANGE_UPLOAD_MINUTES, seconds=1)
        )
        self.upload(locations(1, 2))
        self.assertFalse(folder.exists())
        self.assertFalse(stray.exists())
        self.assertIsNotNone(uploads.folder_of(fresh.folder))
        page = self.client.get(url)
        self.assertContains(page, "Expired")
        self.assertNotContains(page, "Confirm the import")
        self.assertEqual(self.client.post(url + "confirm/").status_code, 302)
        self.assertEqual(snapshot("orgchart:"), {})

    def test_the_worker_sweeps_too(self):
        job = self.job_of(self.upload(locations(1, 2)))
        run_jobs()
        ExchangeJob.objects.filter(pk=job.pk).update(
            ended=timezone.now() - timedelta(minutes=settings.EXCHANGE_UPLOAD_MINUTES, seconds=1)
        )
        with mock.patch("config.management.commands.worker.HOUSEKEEPING_SECONDS", 0.01):
            from config.management.commands import worker

            stop = worker.threading.Event()
            with mock.patch("config.management.commands.worker.close_old_connections"):
                worker.threading.Timer(0.5, stop.set).start()
                worker.housekeeping(stop, jobs.worker_id())
        self.assertEqual(self.job_of_pk(job.pk).phase, Phase.EXPIRED)
        self.assertIsNone(uploads.folder_of(job.folder))

    def test_jobs_that_ended_long_ago_are_forgotten(self):
        old, recent = self.job_of(self.upload(locations(1, 2))), self.job_of(self.upload(locations(1, 2)))
        run_jobs()
        long_ago = timezone.now() - timedelta(days=jobs.JOBS_KEPT_DAYS, seconds=1)
        ExchangeJob.objects.filter(pk=old.pk).update(phase=Phase.DONE, ended=long_ago)
        DBTaskResult.objects.filter(pk=old.task).update(finished_at=long_ago)
        jobs.sweep()
        self.assertEqual(list(ExchangeJob.objects.values_list("pk", flat=True)), [recent.pk])
        self.assertEqual([str(pk) for pk in DBTaskResult.objects.values_list("pk", flat=True)], [recent.task])
        self.assertEqual(self.client.get(f"/exchange/orgchart/jobs/{old.pk}/").status_code, 404)

    def test_progress_costs_one_update_per_step_of_documents(self):
        """Counted at two sizes: the job's row is written once per ``runner.STEP`` documents, never
        per document."""
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        def updates(n: int) -> int:
            self.upload(locations(1, n))
            with CaptureQueriesContext(connection) as queries:
                run_jobs()
            return sum('UPDATE "config_exchangejob"' in q["sql"] and '"done"' in q["sql"] for q in queries)

        small, large = updates(runner.STEP * 2), updates(runner.STEP * 6)
        self.assertEqual(large - small, 4)

    def job_of_pk(self, pk) -> ExchangeJob:
        return ExchangeJob.objects.get(pk=pk)

    def test_an_export_prepared_in_the_background(self):
        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        response = self.client.post("/exchange/orgchart/export/")
        self.assertEqual(response.status_code, 303)
        url = response["Location"]
        self.assertContains(self.client.get(url), "Exporting")
        run_jobs()
        page = self.client.get(url)
        self.assertContains(page, "1 locations")
        link = re.search(r'href="([^"]+export\.zip)"', page.content.decode())[1]
        body = b"".join(self.client.get(link).streaming_content)
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            self.assertEqual(archive.read("locations.jsonl"), b'{"id":1,"name":"Seattle","version":1}\n')
        self.assertEqual(Client().get(link).status_code, 302)


class RedisTransactionTestCase(RedisMixin, TransactionTestCase):
    """Committed rows, for a worker process to see."""


@tag("slow")
class WorkerProcessTest(JobScreens, RedisTransactionTestCase):
    """``manage.py worker`` as its own process on the test database and Redis."""

    def setUp(self):
        super().setUp()
        self.admin = self.make_staff("admin", is_superuser=True)
        self.client.force_login(self.admin)
        self.logs = temporary_folder(self)
        # The uploads and the import journals in a folder of the test's own, which the workers share.
        self.enterContext(override_settings(VAR_DIR=temporary_folder(self)))

    def wait(self, url: str, until, what: str, seconds: float = 120):
        """The job page (as htmx polls it) once ``until(page, job)`` holds."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            job = self.job_of(url)  # before the page: the page is then at least as far on as the job
            page = self.poll(url)
            if until(page.content.decode(), job):
                return page
            time.sleep(0.05)
        self.fail(f"the job never reached: {what}: {self.job_of(url).__dict__}")

    def pipe(self, url: str) -> Path:
        """Swap the staged file for a named pipe, so the worker's check reads only what the test
        writes into it, when it writes it: a check as long as the test wants."""
        path = uploads.folder_of(self.job_of(url).folder) / "locations.jsonl"
        path.unlink()
        os.mkfifo(path, 0o600)
        return path

    def writer(self, path: Path) -> int:
        """The pipe's write end, once the worker has opened it to read."""
        deadline = time.monotonic() + 120
        while True:
            try:
                return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: nobody reads it yet
                if time.monotonic() > deadline:
                    self.fail("the worker never opened the upload")
                time.sleep(0.05)

    def write_all(self, fd: int, data: bytes) -> None:
        os.set_blocking(fd, True)
        os.write(fd, data)

    @tag("cluster")  # a worker process on a Redis Cluster too
    def test_a_long_check_then_the_import_with_its_progress_shown(self):
        url = self.upload(locations(1, 1))
        self.assertContains(self.client.get(url), "Waiting for the background worker")
        path = self.pipe(url)
        worker = start_worker(self, self.logs / "worker.log")
        pipe = self.writer(path)
        self.write_all(pipe, locations(1, 1000))
        # Mid-check: the worker has read 1,000 documents and waits for more.
        page = self.wait(url, lambda page, job: '<span id="done">1000</span>' in page, "1,000 documents checked")
        self.assertContains(page, "Checking locations.jsonl: ")
        self.assertContains(page, 'hx-trigger="every 1s"')
        self.assertEqual(self.job_of(url).phase, Phase.CHECKING)
        self.write_all(pipe, locations(1001, 2000))
        os.close(pipe)
        page = self.wait(url, lambda page, job: job.phase != Phase.CHECKING, "the check's end")
        self.assertContains(page, '<code>locations.jsonl</code></td><td class="num">2000</td>', html=False)
        self.assertContains(page, "Confirm the import")
        self.assertEqual(snapshot("orgchart:"), {}, "the check wrote something")

        # The import reads the upload again: a plain file now.
        folder = uploads.folder_of(self.job_of(url).folder)
        (folder / "locations.jsonl").unlink()
        (folder / "locations.jsonl").write_bytes(locations(1, 2000))
        self.assertEqual(self.client.post(url + "confirm/").status_code, 303)
        page = self.wait(url, lambda page, job: job.phase not in ExchangeJob.RUNNING, "the import's end")
        self.assertContains(page, "Imported 2000 locations.")
        self.assertEqual(client().hget(location(2000), "name"), "Place 2000")
        self.assertIsNone(worker.poll(), "the worker stopped")

    def reaped(self, log: str) -> None:
        """Once a worker started with ``log`` has reaped the job a dead worker left (the database is
        watched, not the page, which would find the dead worker itself)."""
        deadline = time.monotonic() + 120
        said = "had lost its worker: marked failed"
        while said not in (self.logs / log).read_text() and time.monotonic() < deadline:
            time.sleep(0.05)

    def test_a_worker_killed_mid_import_leaves_its_job_failed_and_recovered(self):
        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        before, old = snapshot("orgchart:"), exported(self)
        url = self.upload(locations(1, 1), replace=True)
        worker = start_worker(self, self.logs / "worker.log")
        self.wait(url, lambda page, job: job.phase == Phase.CHECKED, "the check's end")
        path = self.pipe(url)  # the import's own check pass reads it
        self.client.post(url + "confirm/")
        pipe = self.writer(path)
        self.write_all(pipe, locations(1, 600))
        self.wait(url, lambda page, job: job.phase == Phase.IMPORTING and job.done >= 500, "the import under way")

        worker.send_signal(signal.SIGKILL)
        worker.wait()
        os.close(pipe)
        job = self.job_of(url)
        self.assertEqual(job.phase, Phase.IMPORTING, "nobody could tell yet")

        # The next worker marks it failed at its start and runs the recovery of the import.
        start_worker(self, self.logs / "worker2.log")
        self.reaped("worker2.log")
        self.assertEqual(self.job_of(url).phase, Phase.FAILED)
        page = self.client.get(url)
        self.assertContains(page, "The worker running this import stopped before it ended.")
        self.assertContains(page, "Its import had written nothing: the app holds exactly the data it held before.")
        self.assertEqual(DBTaskResult.objects.get(pk=job.task).status, TaskResultStatus.FAILED)
        self.assertIsNone(uploads.folder_of(job.folder))
        # Killed before its write pass: the app holds its old data, exactly.
        self.assertEqual(snapshot("orgchart:"), before)
        self.assertEqual(exported(self), old)
        self.assertEqual(runner.interrupted(), [])

    def test_a_worker_killed_in_the_write_pass_or_once_done_holds_the_old_or_the_new_data(self):
        """SIGKILLed (tests/core/import_driver.py) when 1,500 of 2,500 documents have been handed to
        the app (its old data cleared, the first 1,000 new ones written), then once the import's
        journal says done: after the next worker's recovery, the old data exactly, then the new."""
        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        old = exported(self)
        new = b"".join(b'{"id":%d,"name":"Place %d","version":1}\n' % (i, i) for i in range(1, 2501))
        cases = [(("kill-after", "1500"), "was rolled back", "the data it held before"),
                 (("kill-at", journal.DONE), "had completed", "the new data")]  # fmt: skip
        for n, (stop_at, said, holds) in enumerate(cases):
            with self.subTest(stop_at=stop_at):
                url = self.upload(locations(1, 2500), replace=True)
                worker = start_worker(self, self.logs / f"killed-{n}.log", stop_at=stop_at)
                self.wait(url, lambda page, job: job.phase == Phase.CHECKED, "the check's end")
                self.client.post(url + "confirm/")
                self.assertEqual(worker.wait(timeout=120), -signal.SIGKILL, (self.logs / f"killed-{n}.log").read_text())
                self.assertEqual(self.job_of(url).phase, Phase.IMPORTING, "nobody could tell yet")
                if stop_at[0] == "kill-after":  # neither dataset: the old one cleared, a part of the new
                    self.assertEqual(runner.interrupted(), ["orgchart"])
                    self.assertEqual(client().hget(location(1000), "name"), "Place 1000")
                    self.assertEqual(client().exists(location(2500)), 0)

                following = start_worker(self, self.logs / f"next-{n}.log")
                self.reaped(f"next-{n}.log")
                following.send_signal(signal.SIGTERM)  # the next case's jobs are for the next killed worker
                self.assertEqual(following.wait(timeout=60), 0)
                job = self.job_of(url)
                self.assertEqual(job.phase, Phase.FAILED)
                self.assertContains(self.client.get(url), f"Its import {said}: the app holds exactly {holds}.")
                self.assertEqual(runner.interrupted(), [])
                self.assertFalse((settings.VAR_DIR / "imports" / "orgchart").exists(), "the journal stayed")
                self.assertEqual(violations(["orgchart"]), [])
                now = exported(self)
                if stop_at[0] == "kill-after":
                    self.assertEqual(now, old)
                else:
                    self.assertEqual(now["locations.jsonl"], new)

    def test_sigterm_stops_the_running_import_at_once_and_the_worker_after_it(self):
        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        before = snapshot("orgchart:")
        url = self.upload(locations(1, 1), replace=True)
        worker = start_worker(self, self.logs / "worker.log")
        self.wait(url, lambda page, job: job.phase == Phase.CHECKED, "the check's end")
        path = self.pipe(url)  # the import's own check pass reads it
        self.client.post(url + "confirm/")
        pipe = self.writer(path)
        self.write_all(pipe, locations(1, 600))
        self.wait(url, lambda page, job: job.phase == Phase.IMPORTING and job.done >= 500, "the import under way")

        worker.send_signal(signal.SIGTERM)  # the worker waits on the pipe for more: it is not let finish
        self.assertEqual(worker.wait(timeout=60), 0, (self.logs / "worker.log").read_text())
        os.close(pipe)
        job = self.job_of(url)
        self.assertEqual(job.phase, Phase.FAILED)
        said = "Interrupted: stopped by Terminated. Nothing of the import was kept: "
        said += "The org chart holds what it held before."
        self.assertEqual(job.reason, said)
        self.assertContains(self.client.get(url), said)
        self.assertEqual(DBTaskResult.objects.get(pk=job.task).status, TaskResultStatus.FAILED)
        self.assertEqual(snapshot("orgchart:"), before)
