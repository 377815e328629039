"""Uploaded exports between the dry run and the import, and exports waiting for their download: a
folder each under ``VAR_DIR/exchange/``, named by a random token only the job's row names, readable by
this user only; removed once imported or refused, or by ``jobs.sweep`` when nobody confirmed them."""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path

from django.conf import settings

from config.exchange import files
from config.exchange.spec import AppExchange

MAX_UPLOAD = 64 * 1024 * 1024  # bytes of the uploaded file
MAX_UNPACKED = 512 * 1024 * 1024  # bytes of an uploaded zip once unpacked


def _root() -> Path:
    root = Path(settings.VAR_DIR) / "exchange"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    root.chmod(0o700)  # one made before the folders were private
    return root


def new_folder() -> Path:
    folder = _root() / secrets.token_hex(16)
    folder.mkdir(mode=0o700)
    return folder


def folder_of(name: str) -> Path | None:
    """The folder a job names, if it is still here."""
    if not name or not name.isalnum():
        return None
    folder = _root() / name
    return folder if folder.is_dir() else None


def stage(described: AppExchange, upload) -> Path:
    """Store an uploaded export zip or one ``<entity>.jsonl`` file; returns its folder (else Unreadable)."""
    if upload.size > MAX_UPLOAD:
        raise files.Unreadable(
            f"the file is {upload.size // (1024 * 1024)} MB; at most {MAX_UPLOAD // (1024 * 1024)} MB"
        )
    folder = new_folder()
    allowed = {f"{e.name}.jsonl" for e in described.entities}
    name = Path(upload.name or "").name
    try:
        if name.lower().endswith(".zip"):
            files.unpack(upload, folder, allowed | {files.MANIFEST}, MAX_UNPACKED)
        elif name in allowed:
            with os.fdopen(os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
        else:
            expected = ", ".join(sorted(allowed))
            raise files.Unreadable(f"{name or 'the file'} is neither the app's export zip nor one of {expected}")
        for path in folder.iterdir():
            path.chmod(0o600)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def discard(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def discard_named(name: str) -> int:
    """Remove the folder a job names; 1 if there was one."""
    folder = folder_of(name)
    if folder is None:
        return 0
    discard(folder)
    return 1


def sweep(kept: set[str], cutoff: float) -> int:
    """Remove every folder not in ``kept`` last changed before ``cutoff`` (a Unix time)."""
    removed = 0
    for folder in _root().iterdir():
        if folder.name not in kept and folder.is_dir() and folder.stat().st_mtime < min(cutoff, time.time()):
            discard(folder)
            removed += 1
    return removed
