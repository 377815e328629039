"""The journal of an import: what lets one stopped at any point (an error, SIGTERM, a killed process, a
Redis that stops answering) end with exactly the old data or exactly the new. While an app's import runs,
its folder ``VAR_DIR/imports/<app>/`` (owner only) holds:

- ``spool/``: the checked documents of the new data;
- ``backup/`` and ``backup-spool/``: the app's data as it was (an export, and that export checked),
  synced to disk before the first key is touched;
- ``state.json``: the step reached, replaced atomically (fsync, ``os.replace``): ``staged`` ->
  ``backed-up`` -> ``writing`` -> ``done``, or ``rolling-back``.

Redis differs from the old data only in ``writing`` and ``rolling-back``; an import found in one of them
with nobody running it is *interrupted*, and recovering it writes the backup back. The process running
the import flocks ``VAR_DIR/imports/<app>.lock``: a killed one lets go, a second import is refused.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from config.store import Refused

STAGED, BACKED_UP, WRITING, ROLLING_BACK, DONE = "staged", "backed-up", "writing", "rolling-back", "done"
UNFINISHED = frozenset({WRITING, ROLLING_BACK})  # the steps in which Redis may hold neither dataset
STATE = "state.json"
LOCK_TRIES = 20  # a look at the lock by interrupted() holds it for an instant: try again a few times


class UnderWay(Refused):
    """Another process is importing into this app now."""


def root() -> Path:
    return Path(settings.VAR_DIR) / "imports"


def _private(folder: Path) -> Path:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder


def _sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def sync_tree(folder: Path) -> None:
    """fsync every file under ``folder`` and the folders: what a later state relies on is on disk."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            with path.open("rb") as handle:
                os.fsync(handle.fileno())
    for path in [*sorted(p for p in folder.rglob("*") if p.is_dir()), folder]:
        _sync_folder(path)


def _locked(path: Path, mode: int) -> int | None:
    """An open descriptor of ``path`` holding the flock ``mode``, or None when another holds it."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        return None
    return descriptor


class Journal:
    def __init__(self, app: str):
        self.app = app
        self.folder = root() / app
        self.lock = root() / f"{app}.lock"

    spool = property(lambda self: self.folder / "spool")
    backup = property(lambda self: self.folder / "backup")
    backup_spool = property(lambda self: self.folder / "backup-spool")

    @contextmanager
    def held(self) -> Iterator[Journal]:
        """The app's lock, for the whole of an import or a recovery; ``UnderWay`` if another has it."""
        _private(root())
        for _ in range(LOCK_TRIES):
            descriptor = _locked(self.lock, fcntl.LOCK_EX)
            if descriptor is not None:
                break
            time.sleep(0.01)
        else:
            raise UnderWay(f"an import of {self.app} is under way in another process; wait for it to end")
        try:
            yield self
        finally:
            os.close(descriptor)  # closing lets go of the lock

    def running(self) -> bool:
        """Whether a process holds the app's lock now (a killed one holds nothing)."""
        if not self.lock.exists():
            return False
        descriptor = _locked(self.lock, fcntl.LOCK_SH)
        if descriptor is None:
            return True
        os.close(descriptor)
        return False

    def state(self) -> dict:
        try:
            state = json.loads((self.folder / STATE).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return state if isinstance(state, dict) else {}

    def step(self) -> str | None:
        return self.state().get("step")

    def begin(self) -> None:
        """An empty journal folder with its spool: what a killed check pass left is dropped."""
        shutil.rmtree(self.folder, ignore_errors=True)
        _private(self.folder)
        _private(self.spool)

    def record(self, step: str, **values) -> None:
        """Move the journal to ``step`` (keeping what earlier steps recorded), atomically and durably."""
        state = {**self.state(), **values, "app": self.app, "step": step, "pid": os.getpid(), "at": time.time()}
        temporary = self.folder / f".{STATE}.tmp"
        with temporary.open("w", encoding="utf-8") as handle:
            json.dump(state, handle, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.folder / STATE)
        _sync_folder(self.folder)

    def close(self) -> None:
        """Remove the journal, the state first (durably): a folder left half-removed is no interrupted import."""
        state = self.folder / STATE
        if state.exists():
            state.unlink()
            _sync_folder(self.folder)
        shutil.rmtree(self.folder, ignore_errors=True)


def apps() -> list[str]:
    """The apps that have a journal folder."""
    if not root().is_dir():
        return []
    return sorted(path.name for path in root().iterdir() if path.is_dir())


def interrupted() -> list[str]:
    """The apps whose import stopped while Redis held neither dataset, and that no process runs now."""
    found = []
    for app in apps():
        journal = Journal(app)
        if journal.step() in UNFINISHED and not journal.running():
            found.append(app)
    return found
