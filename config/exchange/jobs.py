"""The Import / export screens' long work, run by the background worker (``manage.py worker``): an
upload's check, its import once confirmed, an app's export. Each is a ``django_tasks`` task with its
database backend, so the queue works whichever Redis ``REDIS_URL`` names; the job page reads the
``ExchangeJob`` row the task keeps up to date.

A worker that dies mid-job cannot say so: its job is found running with its worker gone (by the next
worker, its housekeeping and the job page) and marked failed, its import rolled back (``runner.recover``)."""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import socket
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django_tasks import task

from config.embedded import _alive
from config.exchange import files, journal, runner, uploads
from config.exchange.progress import Recorded
from config.models import ExchangeJob as Job

Phase = Job.Phase
log = logging.getLogger(__name__)


class WorkerLost(Exception):
    """The worker running a job stopped before it could say how the job ended."""


def worker_id() -> str:
    """This process as a job's worker: its host and pid, so another process on the host can tell it runs."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}"


# --- starting ------------------------------------------------------------------------------------


def start_check(app: str, user, folder: Path, file_name: str, replace: bool = False, merge: bool = False) -> Job:
    """A job for a staged upload, its check enqueued (replace or merge as the upload form said)."""
    job = Job.objects.create(
        app=app, user=user, folder=folder.name, file_name=file_name[:255], replace=replace, merge=merge
    )
    _enqueue(job, check_upload)
    return job


def start_import(job: Job) -> bool:
    """Enqueue the import of a checked upload; False when it no longer waits (never imported twice)."""
    taken = Job.objects.filter(pk=job.pk, phase=Phase.CHECKED).update(
        phase=Phase.IMPORTING, worker="", step="", done=0, total=None, ended=None, heard=timezone.now()
    )
    if taken:
        _enqueue(job, import_upload)
    return bool(taken)


def start_export(app: str, user) -> Job:
    folder = uploads.new_folder()
    job = Job.objects.create(app=app, user=user, kind="export", folder=folder.name, phase=Phase.EXPORTING)
    _enqueue(job, export_app)
    return job


def _enqueue(job: Job, work) -> None:
    result = work.enqueue(str(job.pk))
    Job.objects.filter(pk=job.pk).update(task=str(result.id))


# --- the tasks -----------------------------------------------------------------------------------


def _claim(job_id: str, phase: str) -> Job | None:
    """The job, now this worker's, if it is still in ``phase`` (a sweep may have expired it)."""
    if not Job.objects.filter(pk=job_id, phase=phase).update(worker=worker_id(), heard=timezone.now()):
        return None
    return Job.objects.get(pk=job_id)


def _end(job: Job, phase: str, **fields) -> None:
    Job.objects.filter(pk=job.pk).update(phase=phase, ended=timezone.now(), heard=timezone.now(), **fields)


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def plan_of(plan: runner.Plan, changes: list[runner.Change] | None = None) -> dict:
    """What the preview shows of a check, as JSON for the job's row (with what it would change)."""
    report = plan.report
    return {
        "changes": [dataclasses.asdict(change) for change in changes] if changes is not None else None,
        "ok": plan.ok,
        "occupied": plan.occupied,
        "present": list(plan.present),
        "counts": {name: report.counts.get(name, 0) for name in plan.present},
        "rewrites": [[name, r.count, r.before, r.after] for name, r in sorted(report.rewrites.items())],
        "refusals": [[r.where, r.field, r.reason] for r in report.refusals],
        "refused": report.refused,
    }


def _staged(job: Job, what: str) -> Path:
    """The job's own folder; ``FileNotFoundError`` (the job's failure) when it was swept meanwhile."""
    folder = uploads.folder_of(job.folder)
    if folder is None:
        raise FileNotFoundError(f"{what} is no longer there")
    return folder


@task()
def check_upload(job_id: str) -> None:
    """The dry run of a staged upload: nothing written; what its import would add, change and delete."""
    job = _claim(job_id, Phase.CHECKING)
    if job is None:
        return
    try:
        folder = _staged(job, "the upload")
        plan = runner.check(job.app, folder, Recorded(job.pk), merge=job.merge)
        changes = runner.changes(plan, job.replace, job.merge) if plan.ok else None
    except BaseException as exc:
        _end(job, Phase.FAILED, reason=_reason(exc))
        uploads.discard_named(job.folder)
        raise
    if plan.ok:
        _end(job, Phase.CHECKED, plan=plan_of(plan, changes))
    else:
        _end(job, Phase.REFUSED, plan=plan_of(plan))
        uploads.discard_named(job.folder)


REFUSALS = (runner.Occupied, runner.Interrupted, runner.Unrestorable, journal.UnderWay)


@task()
def import_upload(job_id: str) -> None:
    """The confirmed import (``runner.restore`` checks again, then writes). A refusal wrote nothing; a
    failure was rolled back, or (``RollbackFailed``) is left for the recovery the dashboard asks for."""
    job = _claim(job_id, Phase.IMPORTING)
    if job is None:
        return
    label = runner.exchange_of(job.app).label
    try:
        folder = _staged(job, "the upload")
        plan = runner.restore(job.app, folder, replace=job.replace, bar=Recorded(job.pk), merge=job.merge)
    except runner.Refused as exc:
        _end(job, Phase.REFUSED, plan=plan_of(exc.plan))
    except REFUSALS as exc:
        _end(job, Phase.REFUSED, reason=str(exc))
    except runner.RollbackFailed as exc:
        _end(job, Phase.FAILED, reason=f"The import stopped, and {exc}")
        raise
    except BaseException as exc:
        kept = f"Nothing of the import was kept: {label} holds what it held before."
        _end(job, Phase.FAILED, reason=f"{_reason(exc)}. {kept}")
        raise
    else:
        _end(job, Phase.DONE, counts=dict(plan.report.counts))
        if plan.signal:  # SIGTERM or SIGINT as the import completed: it now reaches the worker
            signal.raise_signal(plan.signal)
    finally:
        uploads.discard_named(job.folder)


@task()
def export_app(job_id: str) -> None:
    """The app's export zip, in the job's own folder, for the job page's download link."""
    job = _claim(job_id, Phase.EXPORTING)
    if job is None:
        return
    try:
        folder = _staged(job, "the export's folder")
        counts = runner.export(job.app, folder / job.app, Recorded(job.pk))
        files.pack(folder / job.app, folder / f"{job.app}-export.zip")
        uploads.discard(folder / job.app)
    except BaseException as exc:
        _end(job, Phase.FAILED, reason=_reason(exc))
        uploads.discard_named(job.folder)
        raise
    _end(job, Phase.DONE, counts=counts)


def export_file(job: Job) -> Path | None:
    folder = uploads.folder_of(job.folder)
    path = folder / f"{job.app}-export.zip" if folder is not None else None
    return path if path is not None and path.is_file() else None


# --- what the page shows -------------------------------------------------------------------------


def step_text(job: Job) -> str:
    """The step in words: "Checking locations.jsonl", from the runner's bar label."""
    verb, _, what = job.step.rpartition(" ")
    entity = what.rpartition(".")[2]
    if not entity:
        return ""
    return {"check": f"Checking {entity}.jsonl", "import": f"Writing {entity}"}.get(verb, f"Exporting {entity}")


# --- a worker gone -------------------------------------------------------------------------------


def gone(job: Job) -> bool:
    """Whether a running job's worker is silent past ``EXCHANGE_WORKER_SILENCE``, or its pid here is gone."""
    if job.phase not in Job.RUNNING or not job.worker:
        return False
    if job.heard < timezone.now() - timedelta(seconds=settings.EXCHANGE_WORKER_SILENCE):
        return True
    host, _, pid = job.worker.rpartition(":")
    return host == socket.gethostname()[:40] and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid))


def reap(jobs=None) -> list[Job]:
    """Mark failed every running job whose worker has stopped (of ``jobs``, or every job), its import
    rolled back; returns them. One UPDATE names the phase and worker it saw: of two reapers, one recovers."""
    found = []
    candidates = jobs if jobs is not None else Job.objects.filter(phase__in=Job.RUNNING).exclude(worker="")
    for job in candidates:
        if not gone(job):
            continue
        reason = f"The worker running this {_doing(job)} stopped before it ended."
        taken = Job.objects.filter(pk=job.pk, phase=job.phase, worker=job.worker).update(
            phase=Phase.FAILED, reason=reason, ended=timezone.now()
        )
        if not taken:
            continue
        if job.phase == Phase.IMPORTING:
            reason += " " + _recover(job.app)
            Job.objects.filter(pk=job.pk).update(reason=reason)
        _fail_task(job, reason)
        uploads.discard_named(job.folder)
        log.warning("job %s (%s of %s): %s", job.pk, job.kind, job.app, reason)
        found.append(job)
    return found


def _doing(job: Job) -> str:
    return {Phase.CHECKING: "check", Phase.IMPORTING: "import"}.get(job.phase, "export")


def _recover(app: str) -> str:
    """``runner.recover`` for the import a dead worker left, and what the app then holds, in words."""
    step = journal.Journal(app).step()
    try:
        recovered = runner.recover(app)
    except Exception as exc:
        log.exception("recovering the interrupted import of %s", app)
        return (
            f"Recovering the interrupted import failed ({_reason(exc)}): "
            f"run `{runner.recover_hint(app)}` once Redis answers."
        )
    if recovered:
        return "Its import was rolled back: the app holds exactly the data it held before."
    if step == journal.DONE:
        return "Its import had completed: the app holds exactly the new data."
    return "Its import had written nothing: the app holds exactly the data it held before."


def _fail_task(job: Job, reason: str) -> None:
    """The task queue's own record of the task, which nobody else would end."""
    from django_tasks import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    if job.task:
        for result in DBTaskResult.objects.filter(pk=job.task, status=TaskResultStatus.RUNNING):
            result.set_failed(WorkerLost(reason))


# --- housekeeping --------------------------------------------------------------------------------


def heartbeat(worker: str) -> None:
    """Say that this worker lives, on each job it runs."""
    Job.objects.filter(worker=worker, phase__in=Job.RUNNING).update(heard=timezone.now())


def sweep() -> int:
    """Remove uploads never confirmed ``EXCHANGE_UPLOAD_MINUTES`` after their check (the job expires),
    exports not downloaded as long, and any folder no job names as old; returns how many went."""
    cutoff = timezone.now() - timedelta(minutes=settings.EXCHANGE_UPLOAD_MINUTES)
    removed = 0
    stale = Job.objects.filter(Q(phase=Phase.CHECKED) | Q(kind="export", phase=Phase.DONE), ended__lt=cutoff)
    for job in stale:
        if Job.objects.filter(pk=job.pk, phase=job.phase).update(phase=Phase.EXPIRED, heard=timezone.now()):
            removed += uploads.discard_named(job.folder)
    kept = set(Job.objects.filter(phase__in=[*Job.RUNNING, Phase.CHECKED, Phase.DONE]).values_list("folder", flat=True))
    removed += uploads.sweep(kept, cutoff.timestamp())
    _forget_old()
    return removed


JOBS_KEPT_DAYS = 30  # a finished job's row (and the queue's record of its tasks), for its page


def _forget_old() -> None:
    """Drop the rows of jobs, and the queue's records of tasks, that ended long ago."""
    from django_tasks_db.models import DBTaskResult

    before = timezone.now() - timedelta(days=JOBS_KEPT_DAYS)
    Job.objects.filter(ended__lt=before).exclude(phase__in=Job.RUNNING).delete()
    DBTaskResult.objects.finished().filter(finished_at__lt=before).delete()
