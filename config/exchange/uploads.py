"""Uploaded exports waiting between the dry run and the confirm: a folder per upload under
``VAR_DIR/exchange/``, named by a random token that travels signed (bound to the app and the
user), removed once written or after an hour."""

from __future__ import annotations

import secrets
import shutil
import time
from pathlib import Path

from django.conf import settings
from django.core import signing

from config.exchange import files
from config.exchange.spec import AppExchange

MAX_UPLOAD = 64 * 1024 * 1024  # bytes of the uploaded file
MAX_UNPACKED = 512 * 1024 * 1024  # bytes of an uploaded zip once unpacked
KEEP_SECONDS = 3600
_SALT = "config.exchange.upload"


def _root() -> Path:
    return Path(settings.VAR_DIR) / "exchange"


def _sweep() -> None:
    """Forget uploads nobody confirmed within the hour."""
    root = _root()
    if not root.is_dir():
        return
    cutoff = time.time() - KEEP_SECONDS
    for folder in root.iterdir():
        if folder.is_dir() and folder.stat().st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)


def stage(described: AppExchange, upload) -> tuple[str, Path]:
    """Store an uploaded zip (the app's export) or one ``<entity>.jsonl`` file; returns (token,
    folder). Raises ``files.Unreadable`` with the reason for anything else."""
    if upload.size > MAX_UPLOAD:
        raise files.Unreadable(
            f"the file is {upload.size // (1024 * 1024)} MB; at most {MAX_UPLOAD // (1024 * 1024)} MB"
        )
    _sweep()
    token = secrets.token_hex(16)
    folder = _root() / token
    folder.mkdir(mode=0o700, parents=True)  # an upload is its owner's alone: 0700, whatever the umask
    allowed = {f"{e.name}.jsonl" for e in described.entities}
    name = Path(upload.name or "").name
    try:
        if name.lower().endswith(".zip"):
            files.unpack(upload, folder, allowed | {files.MANIFEST}, MAX_UNPACKED)
        elif name in allowed:
            with (folder / name).open("wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
        else:
            expected = ", ".join(sorted(allowed))
            raise files.Unreadable(f"{name or 'the file'} is neither the app's export zip nor one of {expected}")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return token, folder


def sign(token: str, app: str, user_id: int) -> str:
    return signing.dumps({"token": token, "app": app, "user": user_id}, salt=_SALT)


def unsign(value: str, app: str, user_id: int) -> Path | None:
    """The staged folder a signed value names, if it is this user's upload for this app and still here."""
    try:
        data = signing.loads(value, salt=_SALT, max_age=KEEP_SECONDS)
    except signing.BadSignature:
        return None
    if data.get("app") != app or data.get("user") != user_id:
        return None
    folder = _root() / str(data.get("token", ""))
    return folder if folder.is_dir() and folder.parent == _root() else None


def discard(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
