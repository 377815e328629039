"""The bulk writer of the seeders and importers: a batch of new records and their index entries,
sent as one script of plain commands (the catalog's products, the CMS's posts)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain

from config.store.scripts import lua, queue_script, run_script

BULK = lua(__file__, "bulk")


def _text(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


class BulkWrite:
    """New records and their index entries, sent as one script of plain commands per ``send``.

    It takes a pipeline's signatures (the stores write to it as to a pipeline), and ``sadd_each`` for a
    record's many small writes. New records only add to the indexes, and adds commute, so the additions to
    one key become one ZADD/SADD/HSET (one ZINCRBY per tag) for the whole batch: what one command per
    record would write, in far fewer commands, atomically, in one round trip.
    """

    CHUNK = 1000  # arguments a command at most (Lua's unpack takes a few thousand)

    def __init__(self):
        self.keys: list[str] = []
        self.args: list[str] = []
        self.zsets: dict[str, dict[str, float]] = {}
        self.sets: dict[str, set[str]] = {}
        self.fields: dict[str, dict[str, str]] = {}
        self.counts: dict[tuple[str, str], int] = {}

    def _op(self, command: str, key: str, args: list[str]) -> None:
        self.keys.append(key)
        self.args += (str(len(args)), command, *args)

    def _ops(self, command: str, key: str, args: list[str]) -> None:
        if len(args) <= self.CHUNK:
            self._op(command, key, args)
            return
        for start in range(0, len(args), self.CHUNK):
            self._op(command, key, args[start : start + self.CHUNK])

    def zadd(self, key, mapping):
        self.zsets.setdefault(key, {}).update(mapping)

    def sadd(self, key, *members):
        self.sets.setdefault(key, set()).update(members)

    def sadd_each(self, keys: Iterable[str], member: str) -> None:
        """``sadd(key, member)`` for each key: a record's trigram sets in one call."""
        for key in keys:
            self.sadd(key, member)

    def hincrby(self, key, field, amount):
        self._op("HINCRBY", key, [field, str(amount)])

    def zincrby(self, key, amount, value):
        self.counts[(key, value)] = self.counts.get((key, value), 0) + amount

    def hset(self, key, field=None, value=None, mapping=None):
        """A whole hash (``mapping``) is written at once; single fields of one key are merged."""
        if mapping is None:
            self.fields.setdefault(key, {})[field] = _text(value)
        else:
            self._ops("HSET", key, [*chain.from_iterable(mapping.items())])

    def set(self, key, value):
        self._op("SET", key, [_text(value)])

    def xadd(self, key, fields, maxlen=None, approximate=True):
        limit = ["MAXLEN", *(["~"] if approximate else []), str(maxlen)] if maxlen else []
        self._op("XADD", key, [*limit, "*", *(part for pair in fields.items() for part in map(str, pair))])

    def _flush(self) -> None:
        for key, scores in self.zsets.items():
            self._ops("ZADD", key, [*chain.from_iterable(zip(map(_text, scores.values()), scores))])
        for key, members in self.sets.items():
            self._ops("SADD", key, sorted(members))
        for key, fields in self.fields.items():
            self._ops("HSET", key, [part for pair in fields.items() for part in pair])
        for (key, value), amount in self.counts.items():
            self._op("ZINCRBY", key, [str(amount), value])
        self.zsets, self.sets, self.fields, self.counts = {}, {}, {}, {}

    def prepared(self) -> tuple[list[str], list[str]]:
        """The script's keys and arguments for everything queued (no keys: nothing); empties it."""
        self._flush()
        keys, args = self.keys, self.args
        self.keys, self.args = [], []
        return keys, args

    def queue(self, pipe) -> None:
        """Queue everything queued as one script on ``pipe`` (a transaction with other writes), checked."""
        keys, args = self.prepared()
        if keys:
            queue_script(pipe, BULK, keys, args, checked=True)

    def send(self) -> int:
        """Run everything queued as one script (one round trip); returns the commands it ran."""
        keys, args = self.prepared()
        return run_script(BULK, keys, args) if keys else 0
