"""The single server's clients: every command and pipeline recorded into the current trace
(``config.trace``), sent as redis-py sends them minus its per-call telemetry bookkeeping."""

from __future__ import annotations

import os
import threading

import redis
from redis.client import Pipeline
from redis.exceptions import WatchError

from config import trace
from config.redis.wire import Stream, packed


class TracedPipeline(Pipeline):
    trace_origin = "data"

    def _send(self, raise_on_error: bool) -> list:
        """Send the stack as redis-py's ``Pipeline.execute`` does, minus its per-call telemetry
        bookkeeping (see ``TracedRedis._execute_command``): the same connection handling, the
        same ``connection_retry()``, and a dropped connection while watching is a WatchError."""
        stack = self.command_stack
        if not stack and not self.watching:
            return []
        if self.scripts:
            self.load_scripts()
        execute = self._execute_transaction if self.transaction or self.explicit_transaction else self._execute_pipeline
        conn = self.connection = self.connection or self.connection_pool.get_connection()

        def dropped(_error):
            conn.disconnect()
            if self.watching:
                raise WatchError("The connection was lost while watching one or more keys")

        try:
            return conn.retry.call_with_retry(lambda: execute(conn, stack, raise_on_error), dropped)
        finally:
            self.reset()

    def immediate_execute_command(self, *args, **options):
        return trace.traced_command(
            lambda: super(TracedPipeline, self).immediate_execute_command(*args, **options), args, self.trace_origin
        )

    def execute(self, raise_on_error: bool = True):
        transactional = self.transaction or self.explicit_transaction

        def commands():
            stack = [trace.Command.of(args) for args, _ in self.command_stack]
            if transactional and stack:
                stack = trace.in_transaction(stack)
            return stack

        return trace.traced(
            lambda: self._send(raise_on_error),
            commands,
            self.trace_origin,
            "transaction" if transactional else "pipeline",
        )


class TracedRedis(redis.Redis):
    """redis.Redis that records each command into the current trace."""

    trace_origin = "data"
    pipeline_class = TracedPipeline

    def _execute_command(self, *args, **options):
        """One command as redis-py sends it, minus the telemetry bookkeeping its client does on
        every call even with telemetry off (collector lookups, timings, error records). The
        connection comes from the pool and goes back to it; a dropped one is closed and the
        command sent again as ``connection_retry()`` allows, exactly as in redis-py."""
        if self.connection is not None or self._single_connection_client:
            return super()._execute_command(*args, **options)
        pool = self.connection_pool
        conn = pool.get_connection()
        try:
            return self._send_retrying(conn, args, options)
        finally:
            pool.release(conn)

    def _send_retrying(self, conn, args: tuple, options: dict):
        return conn.retry.call_with_retry(
            lambda: self._send_command_parse_response(conn, args[0], *args, **options),
            lambda _error: conn.disconnect(),
        )

    def execute_command(self, *args, **options):
        return trace.traced_command(
            lambda: super(TracedRedis, self).execute_command(*args, **options), args, self.trace_origin
        )

    def execute_raw(self, *args):
        """A command whose reply redis-py leaves as it comes (a script's: no reply callback), its
        arguments strings and numbers. Here ``execute_command``; a thread's own client sends it faster."""
        return self.execute_command(*args)

    def pipeline(self, transaction=True, shard_hint=None):
        pipe = self.pipeline_class(self.connection_pool, self.response_callbacks, transaction, shard_hint)
        pipe.trace_origin = self.trace_origin
        return pipe

    def streamed(self, read):
        """``read(stream)`` on a ``Stream`` of a connection of its own. ``read`` must only read: after a
        dropped connection it runs again whole, on a new one, as ``connection_retry()`` allows. A
        stream left with replies unread (an error) is closed, so no later command reads them."""
        pool = self.connection_pool
        conn = pool.get_connection()

        def attempt():
            stream = Stream(conn)
            try:
                result = trace.traced_after(lambda: read(stream), stream.round_trips, self.trace_origin, "stream")
            except BaseException:
                conn.disconnect()
                raise
            if stream.in_flight:
                conn.disconnect()
            return result

        try:
            return conn.retry.call_with_retry(attempt, lambda _error: conn.disconnect())
        finally:
            pool.release(conn)


class ThreadRedis(TracedRedis):
    """The domain client of one thread: its single commands go out on a connection the thread
    keeps, taken from the shared pool on its first command, where a pool checkout costs a lock,
    redis-py's bookkeeping and a ``poll()`` making sure the connection holds no stale reply (a
    read script's client time drops by about a fifth). The check is not needed here: redis-py's
    connection closes itself on any error while it reads a reply (a timeout, an interrupt), so
    a late reply is never read as the next command's. Pipelines take a connection from the pool
    as always."""

    held = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.owner = (os.getpid(), threading.get_ident())

    def _execute_command(self, *args, **options):
        if (os.getpid(), threading.get_ident()) != self.owner:
            # Kept by an object built in another thread (redis-py's ``register_script`` keeps
            # the client it was given), or inherited by a forked process: through the pool.
            return super()._execute_command(*args, **options)
        return self._send_retrying(self._held(), args, options)

    def _held(self):
        conn = self.held
        if conn is None:
            conn = self.held = self.connection_pool.get_connection()
        return conn

    def execute_raw(self, *args):
        """``execute_command`` for a command without a reply callback (a script's), packed by hiredis in
        one call (``packed``) and its reply read as it comes: none of redis-py's work per command
        (its options, its check for the one command sent in a form of its own, its callback lookup),
        about a tenth of a script read's client time. On the thread's kept connection, traced, and
        sent again after a dropped connection as ``connection_retry()`` allows, as ``execute_command``."""
        if (os.getpid(), threading.get_ident()) != self.owner:
            return self.execute_command(*args)
        conn = self._held()

        def send():
            conn.send_packed_command(packed(conn, args), check_health=False)
            return conn.read_response()

        return trace.traced_command(
            lambda: conn.retry.call_with_retry(send, lambda _error: conn.disconnect()), args, self.trace_origin
        )

    def close(self) -> None:
        held, self.held = self.held, None
        if held is not None:
            self.connection_pool.release(held)


class DjangoTracedRedis(TracedRedis):
    """The client django-redis builds for sessions and the cache."""

    trace_origin = "django"
