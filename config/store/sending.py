"""Bulk writes sent on a second thread: Redis runs one batch while Python builds the next.

A bulk load's client is busy joining strings and Redis is busy running what
it got; one after the other, each waits on the other (a deep pipeline's
``sendall`` blocks until the server has read it). ``Sender`` runs each batch's
write on one worker thread, one at a time and in order (at most one in
flight), so the two overlap. A batch's error is raised by the next ``send``,
``wait`` or the end of the block, and nothing after it is sent.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class Sender:
    """``threaded=False`` (a write of one round trip, where a thread and the second connection it
    opens would cost more than they overlap) runs each write at once, on the caller's thread."""

    def __init__(self, name: str = "bulk", threaded: bool = True):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name) if threaded else None
        self._pending: Future | None = None
        self.results: list[Any] = []  # what each write returned, in the order sent

    def send(self, write: Callable[[], Any]) -> None:
        """Run ``write()`` once the batch in flight is done, in the caller's context (its trace included)."""
        self.wait()
        if self._pool is None:
            self.results.append(write())
        else:
            self._pending = self._pool.submit(contextvars.copy_context().run, write)

    def wait(self) -> None:
        """Until the batch in flight is written."""
        pending, self._pending = self._pending, None
        if pending is not None:
            self.results.append(pending.result())

    def __enter__(self) -> Sender:
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.wait()
        finally:
            if self._pool is not None:
                self._pool.shutdown()
