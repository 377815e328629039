"""The Redis Cluster clients: redis-py's RedisCluster and its pipeline, each round trip recorded
into the current trace with the node it went to, and a wave of commands to named nodes that
follows a failover (docs/cluster.md)."""

from __future__ import annotations

import time

import redis
from redis.cluster import ClusterNode, ClusterPipeline, RedisCluster, TransactionStrategy
from redis.commands.cluster import READ_COMMANDS
from redis.commands.core import BasicKeyCommands, SetCommands
from redis.exceptions import ClusterDownError, SlotNotCoveredError

from config import trace
from config.redis.wire import PipelinedStream

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
    unlink = BasicKeyCommands.unlink  # refused for several keys outside a transaction: a list's scratch keys

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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._served: dict[str, int] = {}  # a slot each node has served (``_slot_served_by``)
        self._served_map: dict | None = None  # the slot map it was last brought up to date from

    def _execute_command(self, target_node, *args, **kwargs):
        # One call per node a command goes to: DBSIZE or SCAN on every primary is one trip each.
        return trace.traced_command(
            lambda: super(TracedRedisCluster, self)._execute_command(target_node, *args, **kwargs),
            args,
            self.trace_origin,
            target_node.name,
        )

    def execute_raw(self, *args):
        """As on one server (``TracedRedis.execute_raw``): routed by its key, as any command."""
        return self.execute_command(*args)

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

    def _execute_pipeline_by_slot(self, command: str, slots_to_args) -> list:
        """A command over keys of several slots (EXISTS, DELETE, UNLINK, MGET), split by redis-py into
        one command a slot, sent as one plain pipeline: redis-py asks ``pipeline()``, which here is a
        transaction unless told otherwise, and a transaction cannot span slots."""
        pipe = self.pipeline(transaction=False)
        replicas = self.read_from_replicas and command in READ_COMMANDS
        for slot, args in slots_to_args.items():
            pipe.execute_command(command, *args, target_nodes=[self.nodes_manager.get_node_from_slot(slot, replicas)])
        return pipe.execute()

    def streamed(self, read):
        """``read(stream)`` on a ``PipelinedStream``: see ``TracedRedis.streamed``."""
        return read(PipelinedStream(self))

    def primaries(self) -> list[ClusterNode]:
        """The primary nodes, in a stable order (by address): the key browser's walk order. Each is
        remembered with a slot it serves (``_slot_served_by``), for a wave sent to it later."""
        self._slot_served_by()
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
        ``FAILOVER_WAITS`` (under two seconds in all), then the failure is raised. Each call's slots are
        the ones its node served when the wave began: another thread may read the map again meanwhile,
        and the dead node is then in it no more."""
        slots = self._a_slot_of(calls)
        for wait in FAILOVER_WAITS:
            try:
                return self._on_nodes(calls, keys)
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                time.sleep(wait)
                if None in slots:  # a node that served no slot: nothing to move its command to
                    raise
                self.nodes_manager.initialize()
                calls = [(self.nodes_manager.get_node_from_slot(slot), args) for slot, (_, args) in zip(slots, calls)]
        return self._on_nodes(calls, keys)  # the last attempt: its failure is raised

    def _a_slot_of(self, calls: list[tuple[ClusterNode, tuple]]) -> list[int | None]:
        """A slot each call's node serves, or last served (None: it never served one)."""
        served = self._slot_served_by()
        return [served.get(node.name) for node, _ in calls]

    def _slot_served_by(self) -> dict[str, int]:
        """A slot each node served in the latest slot map this client holds, by node name, and for a
        node no longer in it (a dead primary, dropped when another thread read the map again after
        the caller listed the nodes) the slot it served in an earlier one: a command sent to that
        node follows its slot to the node serving it now. Worked out once per map read, not per wave."""
        slots = self.nodes_manager.slots_cache
        if self._served_map is not slots:
            latest: dict[str, int] = {}
            for slot, serving in slots.items():
                if serving:
                    latest.setdefault(serving[0].name, slot)
            self._served.update(latest)
            self._served_map = slots
        return self._served

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
