"""What an app contributes to the benchmark: its data, its questions, its pages.

An app's ``benchmark.py`` registers one ``Part``, autodiscovered like ``seeds``
and ``loadtest``, so the benchmark's machinery never imports an app's internals:

    @part("catalog", order=10)
    class Catalog(Part):
        schema = "CREATE TABLE products (id {pk}, ...);"   # the e-book's normalized tables
        def generate(self): ...         # deterministic records for self.scale
        def load_redis(self, run): ...  # through the app's store; returns [Load]
        def load_sql(self, db): ...     # the same records as rows; returns [Load]
        def operations(self, sides): ...  # [Operation], each answered by every side
        def pages(self): ...            # [(kind, path)] timed beside their floor
        def spread_writes(self): ...    # [(name, write(n))] for benchmark --cluster

``Operation`` carries one callable per side: ``redis`` (the app's store
functions, the screens' own reads and writes), ``sql`` (hand-written SQL on the
e-book's plain relational model, run on SQLite and on PostgreSQL through
``config.benchmark.sql.Db``), ``dba`` (one statement on PostgreSQL, on that
model with the precomputation the Redis model keeps: the part's ``dba_schema``)
and ``orm`` (the Django ORM on ``config.benchmark.models``). Each is called
with the run number, so a write can vary its input; the SQL sides also get
their ``Db``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Operation:
    key: str  # "1", "7a" ...: the benchmark's numbering
    name: str
    redis: Callable[[int], Any]
    sql: Callable[[Any, int], Any]  # (db, run number)
    orm: Callable[[str, int], Any] | None = None  # (database alias, run number)
    dba: Callable[[Any, int], Any] | None = None  # (db, run number): one statement on the DBA's schema
    # For a write: what to read back on each side after one run of each (called like the sides).
    check: Operation | None = None
    write: bool = False


@dataclass
class Load:
    """What loading one app's records cost on one side: records written, seconds, INFO used_memory growth."""

    app: str
    records: int
    seconds: float
    bytes: int = 0
    per_record: dict[str, float] = field(default_factory=dict)
    commands: int = 0  # commands the client sent (a script is one), Redis only
    server_commands: int = 0  # commands the server ran for them, a script's own calls too (INFO commandstats)
    input_bytes: int = 0  # bytes the server read for them (INFO stats total_net_input_bytes), Redis only
    server_cpu_seconds: float = 0.0  # the server's CPU meanwhile (INFO cpu), Redis only
    capture: Path | None = None  # the bytes it sent, for its replay (``seeding.replayed``), Redis only
    replay: Any = None  # its bytes replayed by redis-cli --pipe right after it (``seeding.Replay``), Redis only

    @property
    def rate(self) -> float:
        return _over(self.records, self.seconds)

    @property
    def commands_per_second(self) -> float:
        return _over(self.commands, self.seconds)

    @property
    def server_busy(self) -> float:
        """The share of the load's time the server spent on the CPU: near 1, Redis is what limits it."""
        return _over(self.server_cpu_seconds, self.seconds)

    @property
    def bytes_per_command(self) -> float:
        """The bytes the server read per command it ran: what a redis-benchmark SET must carry to be as
        large (a script's own calls are counted here, so a batch's script is not priced as one SET)."""
        return _over(self.input_bytes, self.server_commands or self.commands)


def _over(amount: float, per: float) -> float:
    """``amount / per``, 0 when nothing was measured."""
    return amount / per if per else 0.0


@dataclass
class Extra:
    """A measurement that is not a question asked of every side: a move in a large org, a long diff."""

    key: str
    name: str
    ms: float
    detail: str = ""
    longest_command_ms: float | None = None  # SLOWLOG's longest entry during it, Redis only


class Part:
    """One app's share of the benchmark; ``scale`` is "tiny", "demo" or "large"."""

    app = ""
    order = 50
    schema = ""  # DDL with {pk} (an integer key the insert may leave out), {real}, {without_rowid}
    # PostgreSQL DDL run on a copy of the loaded ``schema``: what a DBA adds to answer each operation in one
    # statement with the Redis model's precomputation (aggregate columns and rollups filled, then kept by
    # triggers or functions, and the indexes that give each order).
    dba_schema = ""

    def __init__(self, scale: str):
        self.scale = scale

    def generate(self) -> None:
        """Build this scale's records, the same on every call (seeded from the scale's name)."""

    def load_redis(self, run) -> list[Load]:
        return []

    def load_sql(self, db) -> list[Load]:
        return []

    def operations(self, sides) -> list[Operation]:
        return []

    def pages(self) -> list[tuple[str, str]]:
        return []

    def extras(self, run) -> list[Extra]:
        """Measurements of this app alone, after the questions (they may change the data)."""
        return []

    def records(self) -> dict[str, int]:
        return {}

    @classmethod
    def sql_texts(cls, dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
        """Operation key -> SQL side ("postgres": the e-book's plain model, "dba") -> the statements one run of
        it sends, in ``dialect``: the text the screens' "In SQL" twins show, the same the benchmark runs."""
        return {}

    def spread_writes(self) -> list[tuple[str, Callable[[int], Any]]]:
        """Writes whose run number ``n`` picks a different object each time (a review of product n, a sample
        of location n), so that on a cluster they spread over the primaries: ``benchmark --cluster`` times
        them from several threads on one server and on the cluster."""
        return []


@dataclass
class Registry:
    parts: dict[str, type[Part]] = field(default_factory=dict)

    def add(self, app: str, order: int = 50):
        def decorate(cls: type[Part]) -> type[Part]:
            cls.app, cls.order = app, order
            self.parts[app] = cls
            return cls

        return decorate

    def ordered(self) -> list[type[Part]]:
        return sorted(self.parts.values(), key=lambda cls: (cls.order, cls.app))


registry = Registry()
part = registry.add
