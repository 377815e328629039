"""Bulk writes sent on a second thread: Redis runs one batch while Python builds the next.

A bulk load's client is busy joining strings and Redis is busy running what
it got; one after the other, each waits on the other (a deep pipeline's
``sendall`` blocks until the server has read it). ``Sender`` runs each batch's
write on one worker thread, one at a time and in order (``depth`` of them
handed over at most), so the two overlap. A batch's error is raised by the
next ``send``, ``wait`` or the end of the block, and nothing after it is sent.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class Sender:
    """``threaded=False`` (a write of one round trip, where a thread and the second connection it
    opens would cost more than they overlap) runs each write at once, on the caller's thread.

    ``depth`` is how many writes may be handed over before ``send`` waits: 1, the one in flight; 2
    lets the caller build a third batch while one runs and the next waits its turn, for a load whose
    batches differ in size (a small one sent right after a large one would otherwise stop the
    caller until the large one is written). Writes still run one at a time, in order."""

    def __init__(self, name: str = "bulk", threaded: bool = True, depth: int = 1):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name) if threaded else None
        self._pending: deque[Future] = deque()
        self._depth = max(1, depth)
        self._failed = False
        self.results: list[Any] = []  # what each write returned, in the order sent

    def send(self, write: Callable[[], Any]) -> None:
        """Run ``write()`` once fewer than ``depth`` writes are waiting or running, in the caller's
        context (its trace included)."""
        self._reap(self._depth - 1)
        if self._pool is None:
            self.results.append(write())
        else:
            self._pending.append(self._pool.submit(contextvars.copy_context().run, self._guarded, write))

    def wait(self) -> None:
        """Until every write handed over is written."""
        self._reap(0)

    def _reap(self, keep: int) -> None:
        """Collect the oldest writes until ``keep`` remain; the first error is raised."""
        while len(self._pending) > keep:
            self.results.append(self._pending.popleft().result())

    def _guarded(self, write: Callable[[], Any]) -> Any:
        """A write, skipped once an earlier one failed: nothing after a failed batch is sent."""
        if self._failed:
            raise RuntimeError("not sent: an earlier batch failed")
        try:
            return write()
        except BaseException:
            self._failed = True
            raise

    def __enter__(self) -> Sender:
        if self._pool is not None:
            _quick_switches.enter()
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.wait()
        finally:
            if self._pool is not None:
                self._pool.shutdown()
                _quick_switches.leave()


class _QuickSwitches:
    """The interpreter's thread switch interval, shortened while any threaded ``Sender`` is open.

    A batch of megabytes leaves ``sendall`` many times (the socket's buffer takes a few hundred
    kilobytes), and each time the sending thread must get the GIL back from the building thread,
    which keeps it for the whole switch interval (5 ms): Redis meanwhile drains the socket and
    waits. At 0.5 ms the sender is back in time to keep Redis fed; the building thread loses a
    little to the extra switches. The interval is the process's: restored when the last Sender
    closes."""

    INTERVAL = 0.0005

    def __init__(self):
        self._lock = threading.Lock()
        self._open = 0
        self._saved = 0.0

    def enter(self) -> None:
        with self._lock:
            if self._open == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved, self.INTERVAL))
            self._open += 1

    def leave(self) -> None:
        with self._lock:
            self._open -= 1
            if self._open == 0:
                sys.setswitchinterval(self._saved)


_quick_switches = _QuickSwitches()
