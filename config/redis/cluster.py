"""The Redis Cluster clients: redis-py's RedisCluster and its pipeline, each round trip recorded
into the current trace with the node it went to, and a wave of commands to named nodes that
follows a failover (docs/cluster.md)."""

from __future__ import annotations

import time

import redis
from redis.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.commands.core import BasicKeyCommands, SetCommands
from redis.exceptions import ClusterDownError, SlotNotCoveredError

from config import trace

# What redis-py's cluster client may send again after a failure: never a timeout, as on
# one server (see ``connection_retry``): the command may have run.
_CLUSTER_RETRY_ERRORS = (redis.ConnectionError, ClusterDownError, SlotNotCoveredError)
FAILOVER_WAITS = (0.0, 0.25, 0.5, 1.0)  # seconds before a wave to named nodes reads the slot map again


def nodes_of(cluster: RedisCluster, command: trace.Command, options: dict) -> list[str]:
    """The nodes a command goes to: those it names, those its name is sent to (SCAN: every primary), else
    the node serving its first key's slot; "any" for a keyless one redis-py sends where it chooses."""
    target = options.get("target_nodes")
    if target is None:  # the nodes its name is sent to (SCRIPT LOAD: every primary, not its argument's)
        name = " ".join(map(trace.as_text, command.sent[:2])).upper()
        target = cluster.command_flags.get(name) or cluster.command_flags.get(trace.as_text(command.sent[0]).upper())
    if target is None:
        keys = command.keys
        if keys:
            try:
                return [cluster.get_node_from_key(keys[0]).name]
            except SlotNotCoveredError:  # raised as redis-py sends it
                return ["?"]
    if isinstance(target, ClusterNode):
        return [target.name]
    if isinstance(target, (list, dict)):
        return [node.name for node in (target.values() if isinstance(target, dict) else target)]
    flagged = {
        RedisCluster.PRIMARIES: cluster.get_primaries,
        RedisCluster.REPLICAS: cluster.get_replicas,
        RedisCluster.ALL_NODES: cluster.get_nodes,
        RedisCluster.DEFAULT_NODE: lambda: [cluster.get_default_node()],
    }.get(target)
    return [node.name for node in flagged()] if flagged else ["any"]


class TracedClusterPipeline(ClusterPipeline):
    """A cluster pipeline whose every node's share is one round trip in the trace (the time shared out
    evenly); what a transaction sends at once while it watches keys is a round trip each."""

    trace_origin = "data"
    ERRORS_ALLOW_RETRY = _CLUSTER_RETRY_ERRORS
    explicit_transaction = False  # whether MULTI was called, as ``redis.Redis``'s pipeline says it

    # redis-py refuses these in a cluster pipeline, as their keys may lie in several slots. An app's
    # keys share one hash tag, and Redis runs a multi-key command whose keys share a slot (one in
    # another slot is CROSSSLOT), so the pipeline takes them as redis.Redis does.
    sinter, sinterstore, smove = SetCommands.sinter, SetCommands.sinterstore, SetCommands.smove
    sunion, sunionstore = SetCommands.sunion, SetCommands.sunionstore
    sdiff, sdiffstore = SetCommands.sdiff, SetCommands.sdiffstore
    mget, rename, renamenx = BasicKeyCommands.mget, BasicKeyCommands.rename, BasicKeyCommands.renamenx
    delete, exists, unlink = BasicKeyCommands.delete, BasicKeyCommands.exists, BasicKeyCommands.unlink

    def __init__(self, *args, transaction=False, **kwargs):
        self.queued: list[tuple[tuple, dict]] = []  # (args, options) of each command queued
        self.transactional = bool(transaction)
        super().__init__(*args, transaction=transaction, **kwargs)

    @property
    def command_stack(self) -> list[tuple[tuple, dict]]:
        """The commands queued so far, as ``redis.Redis``'s pipeline has them (callers count them)."""
        return self.queued

    @command_stack.setter
    def command_stack(self, queued: list) -> None:
        """Queue these commands again, in place of any queued (a pipeline sent again after NOSCRIPT)."""
        if queued or self.queued:
            self.reset()
        for args, options in list(queued):
            self.execute_command(*args, **options)

    def execute_command(self, *args, **kwargs):
        before, send = len(self), super().execute_command

        def sent_at_once():
            queued = len(self) > before
            command = trace.Command.of(args)
            return [] if queued else [(nodes_of(self, command, kwargs)[0], [command])]

        result = trace.traced_after(lambda: send(*args, **kwargs), sent_at_once, self.trace_origin, "command")
        if len(self) > before:
            self.queued.append((args, kwargs))
        return result

    def watch(self, *names):
        if not self.transactional:
            return super().watch(*names)  # refused by redis-py
        return self.execute_command("WATCH", *names)

    def multi(self):
        super().multi()
        self.explicit_transaction = True

    def reset(self):
        super().reset()
        self.queued, self.explicit_transaction = [], False

    def execute(self, raise_on_error: bool = True):
        def trips():
            by_node: dict[str, list] = {}
            for args, options in self.queued:  # each command's keys worked out now, for its node
                command = trace.Command.of(args)
                by_node.setdefault(nodes_of(self, command, options)[0], []).append(command)
            if self.transactional:
                by_node = {node: trace.in_transaction(stack) for node, stack in by_node.items()}
            return by_node

        send = super().execute
        return trace.traced_nodes(
            lambda: send(raise_on_error),
            trips,
            self.trace_origin,
            "transaction" if self.transactional else "pipeline",
        )


class TracedRedisCluster(RedisCluster):
    """redis-py's RedisCluster recording each command into the current trace: a round trip per node."""

    trace_origin = "data"
    ERRORS_ALLOW_RETRY = _CLUSTER_RETRY_ERRORS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._served: dict[str, int] = {}  # a slot each node has served (``_slot_served_by``)
        self._served_map: dict | None = None  # the slot map it was last brought up to date from

    def execute_command(self, *args, **kwargs):
        if not trace.active():
            return super().execute_command(*args, **kwargs)
        command, send = trace.Command.of(args), super().execute_command
        nodes = nodes_of(self, command, kwargs)
        return trace.traced_after(
            lambda: send(*args, **kwargs), lambda: [(node, [command]) for node in nodes], self.trace_origin, "command"
        )

    def pipeline(self, transaction=None, shard_hint=None):
        """redis-py's pipeline, traced: plain unless ``transaction`` (its keys then share one slot)."""
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
            transaction=bool(transaction),
            event_dispatcher=self._event_dispatcher,
        )
        pipe.trace_origin = self.trace_origin
        return pipe

    def primaries(self) -> list[ClusterNode]:
        """The primary nodes by address (the key browser's walk order), each remembered with a slot."""
        self._slot_served_by()
        return sorted(self.get_primaries(), key=lambda node: node.name)

    def on_nodes(self, calls: list[tuple[ClusterNode, tuple]], keys: list[tuple] | None = None) -> list:
        """Each (node, command) sent to that node, every one written before any reply is read: one wave, for
        reads that name their node (SCAN of each primary, DBSIZE, script loads), which may be sent twice.
        ``keys``: each command's keys read as arguments (for the trace). An error reply is returned in place.

        When a node cannot be reached (a primary that died), the slot map is read again and the wave goes
        to the nodes serving its slots now, after each of ``FAILOVER_WAITS``: a node's map may name the
        dead primary for a moment after the promotion. The slots are those served when the wave began."""
        served = self._slot_served_by()  # a slot each call's node serves, or last served (None: never)
        slots = [served.get(node.name) for node, _ in calls]
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

    def _slot_served_by(self) -> dict[str, int]:
        """A slot each node served in the latest slot map, by name, and for a node no longer in it (a dead
        primary) the slot it served in an earlier one, which a command to it follows. Once per map read."""
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
    """The cluster client of sessions and the cache."""

    trace_origin = "django"
