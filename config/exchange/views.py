"""The Import / export screens, one per app, for administrators: download the app's export as a
zip; upload an export (zip or one .jsonl file) for a dry run that writes nothing and shows the
counts, what would be normalized and every refused record; then confirm to write it."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import FileResponse, Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from config.exchange import files, runner, uploads
from config.exchange.forms import ConfirmForm, UploadForm
from config.saving import post_only

PERMISSION = "config.exchange_data"  # superusers hold every permission
administrators = permission_required(PERMISSION, raise_exception=True)


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


def _screen(request, described, form, status=200):
    (occupied,) = runner.holding([described])
    context = {"described": described, "form": form, "occupied": occupied}
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
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return FileResponse(handle, as_attachment=True, filename=f"{app}-export.zip", content_type="application/zip")


def _preview(request, described, plan, replace: bool, signed: str = "", status: int = 200):
    confirm = None
    if signed and plan.ok and (replace or not plan.occupied):
        confirm = ConfirmForm(initial={"upload": signed, "replace": replace})
    context = {
        "described": described,
        "plan": plan,
        "replace": replace,
        "confirm": confirm,
        "counts": [(e.name, plan.report.counts.get(e.name, 0)) for e in described.entities if e.name in plan.present],
    }
    return render(request, "exchange/preview.html", context, status=status)


@administrators
@post_only(lambda app: reverse("exchange:screen", args=[app]))
def preview(request, app: str):
    """The dry run: the upload is read and checked whole; nothing is written to Redis."""
    described = _described(app)
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _screen(request, described, form, status=400)
    try:
        token, folder = uploads.stage(described, form.cleaned_data["file"])
    except files.Unreadable as exc:
        form.add_error("file", str(exc))
        return _screen(request, described, form, status=400)
    plan = runner.check(app, folder)
    replace = form.cleaned_data["replace"]
    if not plan.ok:
        uploads.discard(folder)
        return _preview(request, described, plan, replace, status=400)
    return _preview(request, described, plan, replace, uploads.sign(token, app, request.user.pk))


@administrators
@post_only(lambda app: reverse("exchange:screen", args=[app]))
def confirm(request, app: str):
    described = _described(app)
    form = ConfirmForm(request.POST)
    folder = uploads.unsign(form.data.get("upload", ""), app, request.user.pk) if form.is_valid() else None
    back = redirect(reverse("exchange:screen", args=[app]))
    if folder is None:
        messages.error(request, "This upload has expired or was already imported: upload the file again.")
        return back
    try:
        plan = runner.restore(app, folder, replace=form.cleaned_data["replace"])
    except runner.Refused as exc:
        return _preview(request, described, exc.plan, form.cleaned_data["replace"], status=400)
    except runner.Occupied as exc:
        messages.error(request, str(exc))
        return back
    finally:
        uploads.discard(folder)
    listed = ", ".join(f"{n} {name}" for name, n in plan.report.counts.items())
    messages.success(request, f"Imported {listed}.")
    return back
