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

import redis

from config import trace

try:
    import hiredis
except ImportError:  # redis-py packs in Python then
    hiredis = None


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


def execute_packed(redis_client, *args: str):
    """One command of many arguments (a bulk script's thousands), packed by hiredis in one call.

    redis-py's ``execute_command`` walks every argument in Python before packing (a type check
    and a tuple each): for a bulk batch of tens of thousands of arguments, that walk was half
    the client's time sending it. Here the arguments (strings only) go to hiredis as they are,
    on a connection of the client's pool, and the command is traced as any other. Without
    hiredis, or on a cluster (which routes by key), it is ``execute_command``.
    """
    if hiredis is None or not isinstance(redis_client, redis.Redis):
        return redis_client.execute_command(*args)
    return trace.traced(
        lambda: _send_packed(redis_client.connection_pool, hiredis.pack_command(args)),
        lambda: [trace.Command.of(args)],
        getattr(redis_client, "trace_origin", "data"),
        "command",
    )


def _send_packed(pool, packed: bytes):
    conn = pool.get_connection()
    try:
        conn.send_packed_command([packed], check_health=False)
        return conn.read_response()
    except (redis.ConnectionError, redis.TimeoutError, OSError):
        conn.disconnect()  # a reply may be left half read: the connection is not used again
        raise
    finally:
        pool.release(conn)
