"""The checked batch: a product write's preconditions and commands sent as one Lua script.

A write queues its commands on a ``Batch`` exactly as it would on a pipeline (``queue_indexes``, the review
machinery's bulk writer and ``queue_event`` take either), names what must hold first (``require_*``), and
``run`` sends everything as one EVALSHA: the script checks every precondition, then applies every command,
atomically, in one round trip. Every key is passed in KEYS (a command names its keys by position), so no key
name is built inside Lua; numbers travel as strings, so a score is never rounded on the way.
"""

from __future__ import annotations

import json

from config.store.scripts import lua, register, run_script

_CHECKED_BATCH = register(lua(__file__, "batch"))


def _text(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


class Batch:
    """Commands queued with a pipeline's signatures, plus preconditions; ``run`` sends them as one script."""

    CHUNK = 1000  # arguments a command at most

    def __init__(self):
        self.keys: dict[str, int] = {}
        self.checks: list[list] = []
        self.ops: list[list] = []

    def _at(self, key: str) -> int:
        return self.keys.setdefault(key, len(self.keys) + 1)

    def _op(self, command: str, keys: tuple[str, ...], *args) -> None:
        self.ops.append([command, [self._at(k) for k in keys], [_text(a) for a in args]])

    def _ops(self, command: str, key: str, parts: list, width: int = 1) -> None:
        """One command per CHUNK arguments: Lua's ``unpack`` takes only a few thousand at once."""
        step = self.CHUNK - self.CHUNK % width
        for start in range(0, len(parts), step):
            self._op(command, (key,), *parts[start : start + step])

    # --- preconditions ----------------------------------------------------------

    def require_absent(self, key: str) -> None:
        self.checks.append(["absent", self._at(key)])

    def require_drawn(self, counter_key: str, drawn: int) -> None:
        """The id counter has reached ``drawn`` (else "stale": the data was reset since it was drawn)."""
        self.checks.append(["drawn", self._at(counter_key), str(drawn)])

    def require_field(self, key: str, name: str, value: str) -> None:
        """The hash holds ``value`` in ``name`` (else missing when absent, a "changed" conflict when other)."""
        self.checks.append(["field", self._at(key), name, value])

    def require_owner(self, key: str, name: str, owner: str = "") -> None:
        """The hash field ``name`` is unset or holds ``owner`` (else refused: the SKU and its holder)."""
        self.checks.append(["owner", self._at(key), name, owner])

    def require_members(self, key: str, members: list[str]) -> None:
        """The sorted set holds exactly ``members`` (else a "changed" conflict)."""
        self.checks.append(["members", self._at(key), *members])

    # --- commands, as on a pipeline ---------------------------------------------

    def hset(self, key, field=None, value=None, mapping=None):
        pairs = ([(field, value)] if field is not None else []) + list((mapping or {}).items())
        self._ops("HSET", key, [part for pair in pairs for part in pair], width=2)

    def hdel(self, key, *fields):
        self._op("HDEL", (key,), *fields)

    def zadd(self, key, mapping):
        self._ops("ZADD", key, [part for member, score in mapping.items() for part in (score, member)], width=2)

    def zrem(self, key, *members):
        self._ops("ZREM", key, list(members))

    def zrem_if_empty(self, key, watched, *members):
        """ZREM ``members`` from ``key`` if the set ``watched`` is empty by then (a word no name holds any
        more leaves the vocabulary)."""
        self._op("ZREM_IF_EMPTY", (key, watched), *members)

    def zincrby(self, key, amount, value):
        self._op("ZINCRBY", (key,), amount, value)

    def zremrangebyscore(self, key, min, max):
        self._op("ZREMRANGEBYSCORE", (key,), min, max)

    def sadd(self, key, *members):
        self._ops("SADD", key, list(members))

    def srem(self, key, *members):
        self._ops("SREM", key, list(members))

    def unlink(self, *keys):
        for start in range(0, len(keys), self.CHUNK):
            self._op("UNLINK", keys[start : start + self.CHUNK])

    def xadd(self, key, fields, maxlen=None, approximate=True):
        limit = ("MAXLEN", *(("~",) if approximate else ()), maxlen) if maxlen else ()
        self._op("XADD", (key,), *limit, "*", *(part for pair in fields.items() for part in pair))

    # --- sending ----------------------------------------------------------------

    def run(self) -> list[str]:
        """One script call: ``["ok"]``, or the first failed check (nothing written)."""
        spec = json.dumps({"checks": self.checks or {}, "ops": self.ops or {}})
        return run_script(_CHECKED_BATCH, list(self.keys), [spec])
