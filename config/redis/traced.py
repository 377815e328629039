"""The single server's clients: redis-py's own, each command and pipeline recorded into the
current trace (``config.trace``) through its public methods."""

from __future__ import annotations

import redis
from redis.client import Pipeline

from config import trace


class TracedPipeline(Pipeline):
    trace_origin = "data"

    def immediate_execute_command(self, *args, **options):
        """A command sent at once while the pipeline watches keys: a round trip of its own."""
        return trace.traced_command(
            lambda: super(TracedPipeline, self).immediate_execute_command(*args, **options), args, self.trace_origin
        )

    def execute(self, raise_on_error: bool = True):
        transactional = self.transaction or self.explicit_transaction

        def commands():
            stack = [trace.Command.of(args) for args, _ in self.command_stack]
            return trace.in_transaction(stack) if transactional and stack else stack

        return trace.traced(
            lambda: super(TracedPipeline, self).execute(raise_on_error),
            commands,
            self.trace_origin,
            "transaction" if transactional else "pipeline",
        )


class TracedRedis(redis.Redis):
    """redis.Redis that records each command into the current trace."""

    trace_origin = "data"

    def execute_command(self, *args, **options):
        return trace.traced_command(
            lambda: super(TracedRedis, self).execute_command(*args, **options), args, self.trace_origin
        )

    def pipeline(self, transaction=True, shard_hint=None):
        pipe = TracedPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)
        pipe.trace_origin = self.trace_origin
        return pipe


class DjangoTracedRedis(TracedRedis):
    """The client django-redis builds for sessions and the cache."""

    trace_origin = "django"
