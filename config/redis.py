"""The one place that builds Redis clients.

With ``REDIS_URL`` unset they talk to the embedded server (``config.embedded``).

Two clients share one URL: ``client()`` decodes replies to ``str`` for the
domain code, ``raw_client()`` keeps bytes for the key browser, which must show
binary values safely. Both are traced (see ``config.trace``).

``redis+cluster://host:port`` (or ``rediss+cluster://`` with TLS) names a
Redis Cluster by any one of its nodes: the clients are then redis-py's
``RedisCluster``, traced per node, and Django's cache and sessions use one too
(``DjangoConnectionFactory``). See docs/cluster.md.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import redis
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django_redis.pool import ConnectionFactory
from redis.backoff import ExponentialBackoff
from redis.client import Pipeline
from redis.cluster import ClusterNode, ClusterPipeline, RedisCluster, TransactionStrategy
from redis.commands.core import BasicKeyCommands, SetCommands
from redis.exceptions import ClusterDownError, SlotNotCoveredError, WatchError
from redis.retry import Retry

from config import trace

try:
    import hiredis
except ImportError:  # redis-py packs and parses in Python then
    hiredis = None
from config.embedded import embedded_url

# Query parameters that carry a credential in a Redis URL (redis-py reads
# ``password`` and ``username`` from the query too, also of a unix socket URL).
_SECRET_PARAMS = {"password", "pass", "passwd", "pwd", "auth", "secret", "token", "requirepass"}


def redacted(url: str) -> str:
    """The URL without its password in any spelling (``user:pass@``, ``:pass@``,
    ``?password=``, a unix socket's query), safe to show on a page or in a log.
    A URL that cannot be parsed is hidden whole."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        parts.port  # noqa: B018  (raises on a malformed port)
    except ValueError:
        return "(hidden)"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0] if ":" in userinfo else userinfo
        # A lone "x@" is a username to redis-py, yet often a password written by mistake.
        netloc = (f"{user}:***@" if ":" in userinfo else "***@") + host
    masked = [(k, "***" if k.lower() in _SECRET_PARAMS else v) for k, v in query]
    shown = f"{parts.scheme}://{netloc}{parts.path}"
    return f"{shown}?{urlencode(masked, safe='*/:')}" if masked else shown


CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://`` or ``rediss+cluster://``)."""
    return url.partition("://")[0].lower() in CLUSTER_SCHEMES


def node_url(url: str) -> str:
    """A cluster URL as redis-py reads it: the scheme without ``+cluster``."""
    scheme, sep, rest = url.partition("://")
    return f"{CLUSTER_SCHEMES.get(scheme.lower(), scheme)}{sep}{rest}"


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
        return trace.traced(
            lambda: super(TracedPipeline, self).immediate_execute_command(*args, **options),
            lambda: [trace.Command.of(args)],
            self.trace_origin,
            "command",
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
        return trace.traced(
            lambda: super(TracedRedis, self).execute_command(*args, **options),
            lambda: [trace.Command.of(args)],
            self.trace_origin,
            "command",
        )

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


def packed(conn, args: tuple) -> list[bytes]:
    """A command's bytes for ``conn``: by hiredis in one C call where it is installed (redis-py's packer
    first walks every argument in Python, most of the client's time for a command of thousands of
    arguments; strings and bytes only), else by redis-py's."""
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
    return trace.traced(send, lambda: [trace.Command.of(args)], origin, "command")


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
        conn = self.held
        if conn is None:
            conn = self.held = self.connection_pool.get_connection()
        return self._send_retrying(conn, args, options)

    def close(self) -> None:
        held, self.held = self.held, None
        if held is not None:
            self.connection_pool.release(held)


class DjangoTracedRedis(TracedRedis):
    """The client django-redis builds for sessions and the cache."""

    trace_origin = "django"


# --- Redis Cluster -------------------------------------------------------------------

# What redis-py's cluster client may send again after a failure: never a timeout, as on
# one server (see ``connection_retry``): the command may have run.
_CLUSTER_RETRY_ERRORS = (redis.ConnectionError, ClusterDownError, SlotNotCoveredError)
FAILOVER_WAITS = (0.0, 0.25, 0.5, 1.0)  # seconds before a wave to named nodes reads the slot map again


class TracedClusterPipeline(ClusterPipeline):
    """A cluster pipeline whose every node's share is one round trip in the trace.

    redis-py sends a cluster pipeline as one pipeline per node, written to every
    node before any reply is read, so the trace holds one round trip per node,
    each with that node's commands in order; their time is measured as a whole
    and shared out evenly. A transaction (MULTI/EXEC) goes to the one node that
    serves its slot.
    """

    trace_origin = "data"
    ERRORS_ALLOW_RETRY = _CLUSTER_RETRY_ERRORS

    # redis-py refuses these in a cluster pipeline, as their keys may lie in several slots. An app's
    # keys share one hash tag, and Redis runs a multi-key command whose keys share a slot (one in
    # another slot is CROSSSLOT), so the pipeline takes them as redis.Redis does.
    sinter, sinterstore, smove = SetCommands.sinter, SetCommands.sinterstore, SetCommands.smove
    sunion, sunionstore = SetCommands.sunion, SetCommands.sunionstore
    sdiff, sdiffstore = SetCommands.sdiff, SetCommands.sdiffstore
    mget, rename, renamenx = BasicKeyCommands.mget, BasicKeyCommands.rename, BasicKeyCommands.renamenx

    @property
    def command_stack(self) -> list:
        """The commands queued so far, as ``redis.Redis``'s pipeline has them (redis-py keeps a cluster
        pipeline's in its execution strategy): callers count them to find their replies."""
        return self._execution_strategy.command_queue

    @command_stack.setter
    def command_stack(self, queued: list) -> None:
        """Queue these commands again (a pipeline sent again after NOSCRIPT); ClusterPipeline's own
        ``__init__`` sets a list here before its strategy exists, which nothing reads."""
        strategy = getattr(self, "_execution_strategy", None)
        if strategy is not None:
            strategy.command_queue = list(queued)

    @property
    def explicit_transaction(self) -> bool:
        """Whether MULTI was called, as ``redis.Redis``'s pipeline says it (``config.store.transact``)."""
        return getattr(self._execution_strategy, "_explicit_transaction", False)

    def eval(self, script, numkeys, *keys_and_args):
        return self.execute_command("EVAL", script, numkeys, *keys_and_args)

    def evalsha(self, sha, numkeys, *keys_and_args):
        return self.execute_command("EVALSHA", sha, numkeys, *keys_and_args)

    def node_of(self, args: tuple, options: dict) -> str:
        """The node a queued command goes to: its target, else the node serving its first key's slot."""
        target = options.get("target_nodes")
        if isinstance(target, ClusterNode):
            return target.name
        keys = trace.Command.of(args).keys
        if not keys:
            return "any"
        node = self.nodes_manager.get_node_from_slot(self.keyslot(keys[0]))
        return node.name if node is not None else "?"

    def execute(self, raise_on_error: bool = True):
        transactional = isinstance(self._execution_strategy, TransactionStrategy)
        queue = self._execution_strategy.command_queue

        def trips():
            by_node: dict[str, list] = {}
            for queued in queue:
                by_node.setdefault(self.node_of(queued.args, queued.options), []).append(trace.Command.of(queued.args))
            if transactional:
                by_node = {node: trace.in_transaction(stack) for node, stack in by_node.items()}
            return by_node

        return trace.traced_nodes(
            lambda: super(TracedClusterPipeline, self).execute(raise_on_error),
            trips,
            self.trace_origin,
            "transaction" if transactional else "pipeline",
        )


class TracedRedisCluster(RedisCluster):
    """redis-py's RedisCluster recording each round trip, with its node, into the current trace.

    ``pipeline()`` is a transaction unless asked otherwise, as with ``redis.Redis``:
    on a cluster its keys must share one slot (redis-py refuses it otherwise, before
    anything is sent).
    """

    trace_origin = "data"
    pipeline_transaction = True
    ERRORS_ALLOW_RETRY = _CLUSTER_RETRY_ERRORS

    def _execute_command(self, target_node, *args, **kwargs):
        # One call per node a command goes to: DBSIZE or SCAN on every primary is one trip each.
        return trace.traced(
            lambda: super(TracedRedisCluster, self)._execute_command(target_node, *args, **kwargs),
            lambda: [trace.Command.of(args)],
            self.trace_origin,
            "command",
            target_node.name,
        )

    def pipeline(self, transaction=None, shard_hint=None):
        if shard_hint:
            raise redis.RedisError("shard_hint is not supported on a cluster")
        pipe = TracedClusterPipeline(
            nodes_manager=self.nodes_manager,
            commands_parser=self.commands_parser,
            startup_nodes=self.nodes_manager.startup_nodes,
            result_callbacks=self.result_callbacks,
            cluster_response_callbacks=self.cluster_response_callbacks,
            read_from_replicas=self.read_from_replicas,
            load_balancing_strategy=self.load_balancing_strategy,
            reinitialize_steps=self.reinitialize_steps,
            retry=self.retry,
            lock=self._lock,
            transaction=self.pipeline_transaction if transaction is None else transaction,
            event_dispatcher=self._event_dispatcher,
        )
        pipe.trace_origin = self.trace_origin
        return pipe

    def streamed(self, read):
        """``read(stream)`` on a ``PipelinedStream``: see ``TracedRedis.streamed``."""
        return read(PipelinedStream(self))

    def primaries(self) -> list[ClusterNode]:
        """The primary nodes, in a stable order (by address): the key browser's walk order."""
        return sorted(self.get_primaries(), key=lambda node: node.name)

    def on_nodes(self, calls: list[tuple[ClusterNode, tuple]], keys: list[tuple] | None = None) -> list:
        """Each (node, command) sent to that node, every one written before any reply is read: one wave
        whatever the number of nodes, recorded as a round trip per node sent together. For what names
        its node rather than a key (a SCAN of each primary, DBSIZE, a script given the keys of one node):
        reads and script loads, which may be sent twice. ``keys``, for each command, the keys it reads as
        plain arguments (shown as its keys). An error reply comes back as the exception, in its place.
        A node that cannot be reached (a primary that died) has its connection closed, the slot map is
        read again, and the wave goes once more to the nodes serving those slots now (a promoted
        replica). The map a node answers may still name the dead primary for a moment after the
        promotion (gossip has not reached it), so the map is read again after each of
        ``FAILOVER_WAITS`` (under two seconds in all), then the failure is raised."""
        for wait in FAILOVER_WAITS:
            try:
                return self._on_nodes(calls, keys)
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                time.sleep(wait)
                moved = self._after_failover(calls)
                if moved is None:
                    raise
                calls = moved
        return self._on_nodes(calls, keys)  # the last attempt: its failure is raised

    def _after_failover(self, calls: list[tuple[ClusterNode, tuple]]) -> list | None:
        """``calls`` each on the node serving its node's slots after the slot map is read again; None when
        a node served no slot (nothing to move it to)."""
        a_slot = {}
        for slot, serving in self.nodes_manager.slots_cache.items():
            if serving:
                a_slot.setdefault(serving[0].name, slot)
        self.nodes_manager.initialize()
        if any(node.name not in a_slot for node, _ in calls):
            return None
        return [(self.nodes_manager.get_node_from_slot(a_slot[node.name]), args) for node, args in calls]

    def _on_nodes(self, calls: list[tuple[ClusterNode, tuple]], keys: list[tuple] | None) -> list:

        def send() -> list:
            held = []
            try:
                for node, args in calls:
                    node_client = self.get_redis_connection(node)
                    conn = node_client.connection_pool.get_connection()
                    held.append((node_client, conn))
                    conn.send_packed_command(conn.pack_command(*args), check_health=False)
                replies = []
                for (node_client, conn), (_, args) in zip(held, calls):
                    try:  # parsed as the node's client parses the command's reply (INFO into a dict ...)
                        replies.append(node_client.parse_response(conn, args[0]))
                    except redis.ResponseError as error:
                        replies.append(error)
                return replies
            except BaseException:
                for _, conn in held:
                    conn.disconnect()
                raise
            finally:
                for node_client, conn in held:
                    node_client.connection_pool.release(conn)

        def trips():
            given = keys or [None] * len(calls)
            return [(node.name, [trace.Command.of(args, read)]) for (node, args), read in zip(calls, given)]

        return trace.traced_after(send, trips, self.trace_origin, "pipeline", together=True)


class DjangoTracedRedisCluster(TracedRedisCluster):
    """The cluster client of sessions and the cache: its pipelines (django-redis's
    ``set_many``) are plain, their keys being in any slot."""

    trace_origin = "django"
    pipeline_transaction = False


def _cluster_client(url: str, cls: type[TracedRedisCluster], decode: bool, **options) -> TracedRedisCluster:
    return cls.from_url(node_url(url), decode_responses=decode, **options)


class DjangoConnectionFactory(ConnectionFactory):
    """django-redis's connection factory, building a traced RedisCluster for a cluster URL.

    One client per URL and timeouts for the process (built once: it learns the
    slot map from the cluster), closed by ``reset_clients``.
    """

    def connect(self, url: str):
        if not is_cluster_url(url):
            return super().connect(url)
        timeout = self.options.get("SOCKET_TIMEOUT") or settings.REDIS_SOCKET_TIMEOUT
        connect_timeout = self.options.get("SOCKET_CONNECT_TIMEOUT") or settings.REDIS_CONNECT_TIMEOUT
        return _shared(
            ("django", url, timeout, connect_timeout),
            lambda: _cluster_client(
                url,
                DjangoTracedRedisCluster,
                False,
                **{**_connection_options(), "socket_timeout": timeout, "socket_connect_timeout": connect_timeout},
            ),
        )

    def disconnect(self, connection) -> None:
        if isinstance(connection, RedisCluster):
            return  # shared by every request; reset_clients closes it
        super().disconnect(connection)


def connection_retry() -> Retry:
    """One quick retry, for every client (django-redis's too): a dropped connection
    is re-opened at once, while a dead server turns into a 503 page fast rather
    than after a long backoff.

    Never on a timeout: the command was sent and the server may have run it (a
    long EXEC or script), so sending it again could apply a write twice or
    refuse it as a duplicate of itself. A timeout is the 503 page, the outcome
    unknown."""
    return Retry(ExponentialBackoff(cap=0.05, base=0.01), 1, supported_errors=(redis.ConnectionError,))


def _connection_options() -> dict:
    # A slow server fails the request within REDIS_SOCKET_TIMEOUT.
    return {
        "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
        "socket_connect_timeout": settings.REDIS_CONNECT_TIMEOUT,
        "retry": connection_retry(),
        "health_check_interval": 30,
    }


_built: dict[object, TracedRedis | TracedRedisCluster] = {}
_build_lock = threading.Lock()


def _shared(kind, build):
    """One client per kind for the process, built once even when threads ask together.

    Built twice, the spare client would be garbage-collected, and redis-py's
    ``Redis.__del__`` closes the connection pool it built: a pipeline still
    using it fails with "Bad file descriptor" (the load test saw this on fresh
    gunicorn workers when ``functools.cache`` did the caching).
    """
    built = _built.get(kind)
    if built is None:
        with _build_lock:
            built = _built.get(kind)
            if built is None:
                built = build()
                _built[kind] = built
    return built


def _client(decode: bool) -> TracedRedis | TracedRedisCluster:
    url = settings.REDIS_URL
    if is_cluster_url(url):
        return _shared(decode, lambda: _cluster_client(url, TracedRedisCluster, decode, **_connection_options()))
    return _shared(decode, lambda: TracedRedis.from_url(url, decode_responses=decode, **_connection_options()))


_threads = threading.local()


def client() -> TracedRedis | TracedRedisCluster:
    """The domain client: replies decoded to ``str``. On one server, the calling thread's own
    ``ThreadRedis`` over the shared client's pool (built again after a fork or a new URL)."""
    shared = _client(True)
    if isinstance(shared, TracedRedisCluster):
        return shared
    mine = getattr(_threads, "client", None)
    if mine is None or mine.connection_pool is not shared.connection_pool or mine.owner[0] != os.getpid():
        mine = _threads.client = ThreadRedis(connection_pool=shared.connection_pool)
    return mine


def raw_client() -> TracedRedis | TracedRedisCluster:
    """Replies as bytes, for showing binary values without breaking."""
    return _client(False)


def on_cluster() -> bool:
    """Whether the clients talk to a Redis Cluster."""
    return is_cluster_url(settings.REDIS_URL)


def scan_beside(key: str, cursor: int, match: str, count: int, _type: str = "") -> tuple[int, list]:
    """One SCAN step over the keys of ``key``'s node: on a cluster, the primary serving its slot; on one
    server, the server. A resumable cursor over an app whose keys all share ``key``'s hash tag."""
    redis_client = client()
    if not isinstance(redis_client, RedisCluster):
        cursor, found = redis_client.scan(cursor, match=match, count=count, _type=_type or None)  # not TYPE ''
        return int(cursor), found
    args = ["SCAN", cursor, "MATCH", match, "COUNT", count] + (["TYPE", _type] if _type else [])
    ((cursor, found),) = redis_client.on_nodes([(redis_client.get_node_from_key(key), tuple(args))])
    return int(cursor), found


def reset_clients() -> None:
    with _build_lock:
        for built in _built.values():
            built.close()
        _built.clear()


def is_dev_server() -> bool:
    """Whether the clients point at the development data under ``var/``."""
    dev_url = embedded_url(Path(settings.VAR_DIR) / "redis")
    return dev_url == settings.REDIS_URL or os.environ.get("REDIS_URL") == settings.REDIS_URL


@receiver(setting_changed)
def _rebuild_on_url_change(setting, **kwargs):
    if setting in {"REDIS_URL", "REDIS_SOCKET_TIMEOUT", "REDIS_CONNECT_TIMEOUT"}:
        reset_clients()
