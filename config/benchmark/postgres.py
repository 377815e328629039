"""A throwaway PostgreSQL cluster in a temporary directory, as the scratch Redis is.

``initdb`` a cluster, start it listening on a unix socket only (no TCP port to
collide with), create the database ``sql`` (the benchmark copies it to ``orm``
once loaded, so the two sides' writes never meet) and stop it at the end, on
an error or a Ctrl-C too. Durability is set as the Redis side's: ``synchronous_commit=off``
acknowledges a commit before its WAL reaches the disk, as ``appendfsync
everysec`` does. ``pg_stat_statements`` is loaded so the server's own time per
statement can be read beside the client's.

The binaries are Debian's ``postgresql`` package (``apt-get install
postgresql``); ``binaries()`` finds them on PATH or under
``/usr/lib/postgresql/<version>/bin``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "install PostgreSQL's server binaries (Debian: apt-get install postgresql)"
DATABASES = ("sql",)  # the ORM's database is made from it once loaded (CREATE DATABASE orm TEMPLATE sql)
USER = "bench"


def binaries() -> Path | None:
    """The directory holding initdb, pg_ctl and postgres, or None."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return versions[-1].parent if versions else None


@dataclass
class Cluster:
    bin: Path
    directory: Path
    port: int = 5432  # only names the socket file; nothing listens on TCP

    @property
    def socket_dir(self) -> Path:
        return self.directory

    def conninfo(self, database: str) -> str:
        return f"host={self.socket_dir} port={self.port} user={USER} dbname={database}"

    def django_settings(self, database: str) -> dict:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": database,
            "USER": USER,
            "HOST": str(self.socket_dir),
            "PORT": str(self.port),
        }

    def pid(self) -> int:
        """The postmaster's process id (the first line of its ``postmaster.pid``)."""
        return int((self.directory / "data" / "postmaster.pid").read_text().split("\n", 1)[0])

    def version(self) -> str:
        out = subprocess.run([self.bin / "postgres", "--version"], capture_output=True, text=True, check=True)
        return out.stdout.split()[2]  # "postgres (PostgreSQL) 15.18 (Debian ...)"


def _as_owner(directory: Path) -> dict:
    """initdb refuses to run as root: then run the binaries as the ``postgres`` system user."""
    if os.geteuid() != 0:
        return {}
    import pwd

    try:
        owner = pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root and there is no 'postgres' user to run PostgreSQL as") from None
    for path in (directory, *directory.rglob("*")):
        os.chown(path, owner.pw_uid, owner.pw_gid)
    return {"user": owner.pw_uid, "group": owner.pw_gid}


def _run(command: list, as_owner: dict, **kwargs) -> None:
    done = subprocess.run(command, capture_output=True, text=True, **as_owner, **kwargs)
    if done.returncode:
        raise RuntimeError(f"{Path(command[0]).name} failed:\n{done.stdout}\n{done.stderr}")


@contextmanager
def scratch_postgres(parent: Path, bin_dir: Path | None = None):
    """A running cluster under ``parent``, with the database ``sql``; stopped on exit."""
    bin_dir = bin_dir or binaries()
    if bin_dir is None:
        raise RuntimeError(f"PostgreSQL is not installed: {INSTALL_HINT}")
    directory = parent / "pg"
    directory.mkdir(mode=0o700)
    os.chmod(parent, 0o755)  # the postgres user must reach its directory
    cluster = Cluster(bin_dir, directory)
    data = directory / "data"
    owner = _as_owner(directory)
    _run([bin_dir / "initdb", "-D", data, "-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"], owner)
    options = " ".join(
        [
            f"-k {directory}",
            "-c listen_addresses=''",
            "-c synchronous_commit=off",
            "-c shared_buffers=256MB",
            "-c shared_preload_libraries=pg_stat_statements",
            "-c pg_stat_statements.track=all",
            "-c max_connections=20",
        ]
    )
    started = False
    try:
        _run([bin_dir / "pg_ctl", "-D", data, "-o", options, "-l", directory / "server.log", "-w", "start"], owner)
        started = True
        import psycopg

        with psycopg.connect(cluster.conninfo("postgres"), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION pg_stat_statements")  # read from here, for every database
            for name in DATABASES:
                conn.execute(f"CREATE DATABASE {name}")
        for name in DATABASES:
            with psycopg.connect(cluster.conninfo(name), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        yield cluster
    finally:
        if started:
            subprocess.run(
                [bin_dir / "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"], capture_output=True, **owner
            )


def server_ms(db, database: str) -> float:
    """Total execution time pg_stat_statements has counted for ``database`` since the last reset."""
    row = db.one(
        "SELECT COALESCE(SUM(total_exec_time), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
        "WHERE d.datname = ? AND s.query NOT LIKE '%pg_stat_statements%'",
        (database,),
    )
    return float(row[0])


def reset_stats(db) -> None:
    db.execute("SELECT pg_stat_statements_reset()")
