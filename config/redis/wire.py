"""What goes on the wire beyond redis-py's own ways: a command of thousands of arguments packed
by hiredis in one C call, and a stream of commands written as soon as they are made."""

from __future__ import annotations

from collections import deque

import redis

from config import trace

try:
    import hiredis
except ImportError:  # redis-py packs and parses in Python then
    hiredis = None


def packed(conn, args: tuple) -> list[bytes]:
    """A command's bytes for ``conn``: by hiredis in one C call where it is installed (redis-py's packer
    first walks every argument in Python, most of the client's time for a command of thousands of
    arguments; strings, bytes and numbers, each as redis-py writes it), else by redis-py's."""
    return [hiredis.pack_command(args)] if hiredis is not None else conn.pack_command(*args)


def execute_packed(redis_client, *args: str):
    """One command of many arguments (a bulk script's thousands), packed in one call (``packed``)
    and sent on a connection of the client's pool, traced as any other. redis-py's
    ``execute_command`` walks every argument in Python first: half the client's time sending a
    bulk batch. Never sent twice (a bulk write may not be idempotent): a connection that fails is
    closed, as a reply may be left half read. On a cluster (which routes by key) it is
    ``execute_command``."""
    if not isinstance(redis_client, redis.Redis):
        return redis_client.execute_command(*args)

    def send():
        pool = redis_client.connection_pool
        conn = pool.get_connection()
        try:
            conn.send_packed_command(packed(conn, args), check_health=False)
            return conn.read_response()
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            conn.disconnect()
            raise
        finally:
            pool.release(conn)

    origin = getattr(redis_client, "trace_origin", "data")
    return trace.traced_command(send, args, origin)


class Stream:
    """Commands written as soon as they are made, their replies read in order, on one connection:
    for a read whose next commands depend on earlier replies (a walk down a tree, a level at a
    time). A pipeline writes nothing until it is whole and reads nothing until it is written, so
    the client building a level and the server running it take turns; here they overlap, each
    command going out while the next is built and the replies before it are read.

    The trace counts the waits, not the writes: a command made after reading a reply of round
    trip N is of round trip N + 1 (those made before any read, of the first). Each round trip is
    recorded with its commands, the stream's time shared evenly among them."""

    def __init__(self, conn):
        self._conn = conn
        self._waves: deque[int] = deque()  # the round trip of each command in flight
        self._wave = 0  # the round trip of the latest reply read
        self.trips: dict[int, list[trace.Command]] | None = {} if trace.active() else None

    def send(self, *args) -> None:
        wave = self._wave + 1
        self._conn.send_packed_command(packed(self._conn, args), check_health=False)
        self._waves.append(wave)
        if self.trips is not None:
            self.trips.setdefault(wave, []).append(trace.Command.of(args))

    def read(self):
        """The reply of the oldest command not yet read, as the server sent it (no redis-py reply
        callback: a SUNION's is a list); an error reply is raised."""
        self._wave = self._waves.popleft()
        return self._conn.read_response()

    def round_trips(self) -> list[tuple[str, list[trace.Command]]]:
        """What the trace records: each round trip's commands (one server: no node)."""
        return [("", commands) for commands in (self.trips or {}).values()]

    @property
    def in_flight(self) -> int:
        return len(self._waves)


class PipelinedStream:
    """``Stream``'s interface on a cluster: the commands queue on a plain pipeline, sent when a
    read finds no reply waiting, one pipeline per node as always (traced by the pipeline). Its
    replies are parsed as the pipeline's are (a SET's is True, a SUNION's a set)."""

    def __init__(self, redis_cluster):
        self._pipe = redis_cluster.pipeline(transaction=False)
        self._replies: deque = deque()

    def send(self, *args) -> None:
        self._pipe.execute_command(*args)

    def read(self):
        if not self._replies:
            self._replies.extend(self._pipe.execute())
        return self._replies.popleft()

    @property
    def in_flight(self) -> int:
        return len(self._replies) + len(self._pipe)
