"""The ledger of acknowledged writes: what the final state in Redis must show."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Expectation:
    app: str
    what: str
    at: float  # monotonic time of the acknowledgement
    check: Callable[[], bool]


@dataclass
class Ledger:
    """The writes the server acknowledged (a redirect after a POST), and how to find each in Redis."""

    acknowledged: Counter = field(default_factory=Counter)  # per app
    expected: dict[tuple, Expectation] = field(default_factory=dict)
    last_ack: float = 0.0
    doubtful: int = 0  # writes that met an outage: applied or not, nobody can tell

    def ack(self, app: str, key: tuple, what: str, check: Callable[[], bool], replaces: tuple = ()) -> None:
        """Record a write; ``replaces`` is a key prefix whose expectations it supersedes (a delete)."""
        self.last_ack = time.monotonic()
        self.acknowledged[app] += 1
        if replaces:
            prefix = (app, *replaces)
            self.expected = {k: e for k, e in self.expected.items() if k[: len(prefix)] != prefix}
        self.expected[(app, *key)] = Expectation(app, what, self.last_ack, check)

    def in_doubt(self, app: str, prefix: tuple, check_after: Callable[[], bool]) -> None:
        """A write to the object under ``prefix`` met the outage: it may or may not have been applied.

        Each expectation of that object then holds if it still holds or if the
        write was applied (``check_after``); the scenario makes no further
        write to the object, so its final state is one of the two.
        """
        self.doubtful += 1
        prefix = (app, *prefix)
        for key, expectation in self.expected.items():
            if key[: len(prefix)] == prefix:
                before = expectation.check
                expectation.check = lambda before=before: before() or check_after()
                expectation.what += " (or the write that met the outage)"
