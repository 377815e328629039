"""The Import / export screens, one per app, for administrators: download the app's export; upload one
for a dry run showing what the import would add, change, delete and refuse; then confirm to write it, in
place of the app's data (replace) or beside it (merge). The check and the import run in the background
worker (``config.exchange.jobs``): a request enqueues, then redirects to the job's page (polled by htmx)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import FileResponse, Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from config.exchange import files, jobs, runner, uploads
from config.exchange.forms import ConfirmForm, UploadForm
from config.models import ExchangeJob
from config.saving import post_only

PERMISSION = "config.exchange_data"  # superusers hold every permission
administrators = permission_required(PERMISSION, raise_exception=True)
POLL_SECONDS = 1  # how often the job page asks for news while the job runs


def _see_job(app: str, job: ExchangeJob) -> HttpResponseRedirect:
    """303 See Other: after the POST that made or moved the job, its page is a GET."""
    response = HttpResponseRedirect(reverse("exchange:job", args=[app, job.pk]))
    response.status_code = 303
    return response


def _described(app: str):
    try:
        return runner.exchange_of(app)
    except KeyError:
        raise Http404("No such app") from None


@administrators
def index(request):
    described = list(runner.exchanges().values())
    apps = list(zip(described, runner.holding(described)))
    return render(request, "exchange/index.html", {"apps": apps})


RECENT_JOBS = 5  # the user's latest jobs of the app, listed on its screen


def _screen(request, described, form, status=200):
    (occupied,) = runner.holding([described])
    recent = ExchangeJob.objects.filter(app=described.app, user=request.user)[:RECENT_JOBS]
    context = {"described": described, "form": form, "occupied": occupied, "jobs": recent}
    return render(request, "exchange/screen.html", context, status=status)


@administrators
def screen(request, app: str):
    return _screen(request, _described(app), UploadForm())


@administrators
def download(request, app: str):
    """The app's export as a zip, built in a temporary folder and streamed from a file."""
    described = _described(app)
    work = Path(tempfile.mkdtemp(prefix=f"{app}-export-"))
    try:
        runner.export(described.app, work / app)
        archive = work / f"{app}-export.zip"
        files.pack(work / app, archive)
        handle = archive.open("rb")  # open before the folder goes: the file lives until it is closed
    except files.TooLong as exc:
        messages.error(request, f"No export: {exc}.")
        return redirect(reverse("exchange:screen", args=[app]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return FileResponse(handle, as_attachment=True, filename=f"{app}-export.zip", content_type="application/zip")


@administrators
@post_only(lambda app: reverse("exchange:screen", args=[app]))
def export(request, app: str):
    """The export prepared by the background worker: for an app too large to zip within a request."""
    described = _described(app)
    job = jobs.start_export(described.app, request.user)
    return _see_job(app, job)


@administrators
@post_only(lambda app: reverse("exchange:screen", args=[app]))
def preview(request, app: str):
    """Stage the upload and enqueue its dry run; the job page shows the check and its outcome."""
    described = _described(app)
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _screen(request, described, form, status=400)
    jobs.sweep()
    upload = form.cleaned_data["file"]
    try:
        folder = uploads.stage(described, upload)
    except files.Unreadable as exc:
        form.add_error("file", str(exc))
        return _screen(request, described, form, status=400)
    replace, merge = form.cleaned_data["replace"], form.cleaned_data["merge"]
    job = jobs.start_check(described.app, request.user, folder, upload.name or "", replace, merge)
    return _see_job(app, job)


def _job(request, app: str, pk) -> ExchangeJob:
    """The signed-in user's own job of this app (another's is not found)."""
    _described(app)
    return get_object_or_404(ExchangeJob, pk=pk, app=app, user=request.user)


def _job_context(described, job: ExchangeJob) -> dict:
    plan = job.plan or {}
    showing_plan = job.kind == "import" and (job.phase == ExchangeJob.Phase.CHECKED or plan.get("refusals"))
    occupied = bool(plan.get("occupied"))
    confirm = None
    if job.phase == ExchangeJob.Phase.CHECKED and plan.get("ok") and (job.replace or job.merge or not occupied):
        confirm = ConfirmForm()
    changes = plan.get("changes")
    return {
        "described": described,
        "job": job,
        "replace": job.replace and occupied,
        "merge": job.merge and occupied,
        "changes": changes,
        "deleted": [change for change in changes or () if change["deleted"]],
        "Phase": ExchangeJob.Phase,
        "running": job.phase in ExchangeJob.RUNNING,
        "waiting": job.phase in ExchangeJob.RUNNING and not job.worker,
        "step": jobs.step_text(job),
        "plan": plan if showing_plan else None,
        "counts": [(name, n) for name, n in (plan.get("counts") or {}).items()],
        "written": [(name, n) for name, n in job.counts.items()],
        "confirm": confirm,
        "poll": POLL_SECONDS,
    }


@administrators
def job(request, app: str, pk):
    """The job's page (polled by htmx: its status fragment); a job whose worker has stopped is reaped."""
    described = _described(app)
    found = _job(request, app, pk)
    if jobs.reap([found]):
        found.refresh_from_db()
    context = _job_context(described, found)
    if request.htmx:
        return render(request, "exchange/job.html#status", context)
    return render(request, "exchange/job.html", context)


@administrators
@post_only(lambda app, pk: reverse("exchange:job", args=[app, pk]))
def confirm(request, app: str, pk):
    found = _job(request, app, pk)
    if not jobs.start_import(found):
        messages.error(request, "This upload has expired or was already imported: upload the file again.")
        return redirect(reverse("exchange:screen", args=[app]))
    return _see_job(app, found)


@administrators
def job_file(request, app: str, pk):
    """A prepared export, for its owner, until it is swept."""
    found = _job(request, app, pk)
    path = jobs.export_file(found) if found.kind == "export" and found.phase == ExchangeJob.Phase.DONE else None
    if path is None:
        raise Http404("This export is no longer here: prepare it again.")
    return FileResponse(path.open("rb"), as_attachment=True, filename=path.name, content_type="application/zip")
