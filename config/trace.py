"""Per-request trace of every Redis command, grouped into round trips.

A round trip is one exchange with the server: a single command, or a whole pipeline (MULTI/EXEC
included); on a Redis Cluster, one exchange with one node, which it names. Recording happens in
the client classes of ``config.redis``, which call ``traced``, so domain code never has to. The
trace is kept in a context variable: the trace middleware opens one per request, tests open one
around what they measure, and a trace opened inside another adds its round trips to the outer one.
"""

from __future__ import annotations

import itertools
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property

ARG_CHARS = 60
ARGS_SHOWN = 8

# Commands whose every argument is a key.
_ALL_KEYS = {
    "DEL", "UNLINK", "EXISTS", "TOUCH", "WATCH", "MGET",
    "SINTER", "SUNION", "SDIFF", "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE",
    "PFCOUNT", "PFMERGE",
}  # fmt: skip
# Commands with two keys up front.
_TWO_KEYS = {"RENAME", "RENAMENX", "SMOVE", "LMOVE", "RPOPLPUSH", "COPY", "ZRANGESTORE"}
# Commands with no key.
_NO_KEYS = {
    "PING", "INFO", "DBSIZE", "SCAN", "MULTI", "EXEC", "DISCARD", "UNWATCH",
    "FLUSHDB", "FLUSHALL", "SCRIPT", "CONFIG", "CLIENT", "TIME", "SHUTDOWN",
    "DEBUG", "SELECT", "COMMAND", "LASTSAVE", "BGREWRITEAOF", "BGSAVE", "ECHO",
}  # fmt: skip


def as_text(value) -> str:
    """An argument as text, as the panel shows it: bytes decoded, anything else as ``str`` gives it."""
    kind = type(value)
    if kind is str:
        return value
    if kind is bytes:
        return value.decode("utf-8", "backslashreplace")
    return str(value)


def command_keys(name: str, args: tuple) -> tuple[str, ...]:
    """The key arguments of one command, for linking them to the key browser."""
    name = name.upper()
    if name in _NO_KEYS or not args:
        return ()
    if name in _ALL_KEYS:
        return tuple(map(as_text, args))
    if name in _TWO_KEYS:
        return tuple(map(as_text, args[:2]))
    if name == "MSET":
        return tuple(map(as_text, args[::2]))
    if name in {"EVAL", "EVALSHA"}:
        numkeys = int(args[1])
        return tuple(map(as_text, args[2 : 2 + numkeys]))
    if name in {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}:
        numkeys = int(args[1])
        return (as_text(args[0]),) + tuple(as_text(a) for a in args[2 : 2 + numkeys])
    if name in {"ZUNION", "ZINTER", "ZDIFF"}:
        numkeys = int(args[0])
        return tuple(as_text(a) for a in args[1 : 1 + numkeys])
    if name in {"MEMORY", "OBJECT"}:
        return (as_text(args[1]),) if len(args) > 1 else ()
    return (as_text(args[0]),)


class Command:
    """One command as the panel shows it: its name, its keys, its arguments cut for showing.
    Recording keeps the arguments as sent; the rest is worked out when first asked for, since most
    commands are never shown."""

    def __init__(self, sent: tuple, given: tuple | None = None):
        self.sent, self.given = sent, given  # the arguments as sent, its name first; the keys it was given

    @classmethod
    def of(cls, args: tuple, keys: tuple | None = None) -> Command:
        """A command as sent; ``keys``, where they travel as plain arguments (a script given one node's keys)."""
        return cls(args, keys)

    @cached_property
    def _shown(self) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        """The name, keys, arguments and argument keys as shown, worked out the first time one is asked for."""
        return self._parse()

    def _parse(self) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        args = self.sent
        name = as_text(args[0]).upper()
        rest = args[1:]
        # Two-word commands (OBJECT ENCODING, MEMORY USAGE, SCRIPT LOAD ...).
        if name in {"OBJECT", "MEMORY", "SCRIPT", "CONFIG", "CLIENT", "DEBUG"} and rest:
            shown_name = f"{name} {as_text(rest[0]).upper()}"
        else:
            shown_name = name
        try:
            keys = command_keys(name, rest) if self.given is None else tuple(map(as_text, self.given))
        except (ValueError, IndexError):
            keys = ()
        full = [as_text(a) for a in rest[:ARGS_SHOWN]]
        shown = [a if len(a) <= ARG_CHARS else a[: ARG_CHARS - 1] + "…" for a in full]
        arg_keys = [a if a in keys else "" for a in full]
        if len(rest) > ARGS_SHOWN:
            shown.append(f"…(+{len(rest) - ARGS_SHOWN})")
            arg_keys.append("")
        return shown_name, keys, tuple(shown), tuple(arg_keys)

    @property
    def name(self) -> str:
        return self._shown[0]

    @property
    def keys(self) -> tuple[str, ...]:
        """The key arguments, whole."""
        return self._shown[1]

    @property
    def args(self) -> tuple[str, ...]:
        """The arguments as shown: cut to ARG_CHARS, at most ARGS_SHOWN of them."""
        return self._shown[2]

    @property
    def arg_keys(self) -> tuple[str, ...]:
        """For each shown argument, the whole key it names, or ""."""
        return self._shown[3]

    @property
    def parts(self) -> list[tuple[str, str]]:
        """(shown text, key or "") for each argument, for the panel's links."""
        return list(zip(self.args, self.arg_keys))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Command):
            return NotImplemented
        return self._shown == other._shown

    __hash__ = None

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {self.keys!r}, {self.args!r}, {self.arg_keys!r})"

    def __str__(self) -> str:
        return " ".join((self.name, *self.args))


def in_transaction(commands: list[Command]) -> list[Command]:
    """A transaction's commands as the server receives them: between MULTI and EXEC."""
    return [Command.of(("MULTI",)), *commands, Command.of(("EXEC",))]


@dataclass
class RoundTrip:
    commands: list[Command]
    ms: float
    origin: str  # "data" for the domain client, "django" for sessions and cache
    kind: str  # "command", "pipeline" or "transaction"
    error: str = ""
    node: str = ""  # on a cluster, the node's address (host:port); "" on one server
    wave: int = 0  # round trips of one wave went out together, to several nodes (a cluster pipeline)


@dataclass
class Trace:
    round_trips: list[RoundTrip] = field(default_factory=list)

    def trips(self, origin: str | None = None) -> list[RoundTrip]:
        return [t for t in self.round_trips if origin is None or t.origin == origin]

    def round_trip_count(self, origin: str | None = None) -> int:
        return len(self.trips(origin))

    def wave_count(self, origin: str | None = None) -> int:
        """Round trips one after another: a cluster pipeline's to several nodes, sent at once, count once."""
        return len({(t.wave or -i) for i, t in enumerate(self.trips(origin), 1)})

    def command_count(self, origin: str | None = None) -> int:
        return sum(len(t.commands) for t in self.trips(origin))

    def ms(self) -> float:
        return sum(t.ms for t in self.round_trips)

    def per_node(self, origin: str | None = None) -> dict[str, int]:
        """Round trips per cluster node, by address; empty on one server."""
        counts: dict[str, int] = {}
        for trip in self.round_trips:
            if trip.node and (origin is None or trip.origin == origin):
                counts[trip.node] = counts.get(trip.node, 0) + 1
        return dict(sorted(counts.items()))

    def touched_keys(self) -> list[str]:
        """Every key touched, in first-seen order."""
        seen: dict[str, None] = {}
        for trip in self.round_trips:
            for command in trip.commands:
                seen.update(dict.fromkeys(command.keys))
        return list(seen)


_current: ContextVar[Trace | None] = ContextVar("redis_trace", default=None)
_waves = itertools.count(1)  # numbers unique across traces, as an inner trace's trips join the outer's


@contextmanager
def recording():
    """Record the Redis commands sent inside the block into a new Trace."""
    outer = _current.get()
    trace = Trace()
    token = _current.set(trace)
    try:
        yield trace
    finally:
        _current.reset(token)
        if outer is not None:
            outer.round_trips.extend(trace.round_trips)


def traced_command(call, args: tuple, origin: str, node: str = ""):
    """``traced`` for one command (``args``, its name first): the clients' every single command."""
    return traced(call, lambda: [Command.of(args)], origin, "command", node)


def traced(call, commands, origin: str, kind: str, node: str = ""):
    """Run one round trip, recording it into the current trace, if any (``commands()`` built only then)."""
    trace = _current.get()
    if trace is None:
        return call()
    shown = commands()
    started, failed = time.perf_counter(), ""
    try:
        return call()
    except BaseException as exc:
        failed = type(exc).__name__
        raise
    finally:
        if shown:
            ms = (time.perf_counter() - started) * 1000
            trace.round_trips.append(RoundTrip(shown, ms, origin, kind, failed, node))


def traced_nodes(call, trips, origin: str, kind: str):
    """Run a cluster pipeline, recording one round trip per node (``trips()``: node -> commands), the
    time shared evenly among them: the nodes are written to before any is read."""
    if _current.get() is None:
        return call()
    by_node = trips()
    return traced_after(call, lambda: by_node.items(), origin, kind, together=True)


def traced_after(call, trips, origin: str, kind: str, together: bool = False):
    """Run ``call``, then record the round trips ``trips()`` gives as (node, commands) pairs, the time
    shared evenly among them. ``together``: they went out at once, as one wave."""
    trace = _current.get()
    if trace is None:
        return call()
    started, error = time.perf_counter(), None
    try:
        return call()
    except BaseException as exc:
        error = exc
        raise
    finally:
        shown = [(node, commands) for node, commands in trips() if commands]
        if shown:
            ms = (time.perf_counter() - started) * 1000 / len(shown)
            failed = type(error).__name__ if error else ""
            wave = next(_waves) if together else 0
            for node, commands in shown:
                trace.round_trips.append(RoundTrip(commands, ms, origin, kind, failed, node, wave))


def active() -> bool:
    """Whether a trace is open (so that nothing is built for one when none is)."""
    return _current.get() is not None
