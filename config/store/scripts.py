"""The one way to run a Lua script: EVALSHA once the server has it, EVAL where it does not.

A script is sent whole (EVAL, which also caches it on the server) the first time a
client runs it on a server, or on a Redis Cluster on a node (the one serving its first
key's slot), by its digest (EVALSHA) after that. A server that lost its cache (a
restart, a promoted replica) answers NOSCRIPT: the script is sent whole again. So
every script call is one round trip on one server and on a cluster alike, with nothing
to load beforehand.
"""

from __future__ import annotations

import hashlib
from functools import cache

from redis.cluster import RedisCluster
from redis.exceptions import NoScriptError

from config.redis import client, execute_packed, on_cluster

_loaded: set[tuple[int, str, str]] = set()  # (client, script digest, cluster node or "") sent so far


def _sent(redis_client, sha: str, keys: list[str]) -> tuple:
    """What marks a script as sent: by this client, and on a cluster to the node serving its first
    key's slot (each node caches the scripts it was sent; the others answer NOSCRIPT)."""
    node = redis_client.get_node_from_key(keys[0]).name if keys and isinstance(redis_client, RedisCluster) else ""
    return id(redis_client), sha, node


def run_script(source: str, keys: list[str], args: list):
    """Run a Lua script in one round trip: EVAL the first time a client sends it to a server (or a
    cluster node, which caches it), EVALSHA after that; if the server lost its cache (a restart, a
    replica promoted), EVAL again."""
    return _run(
        source, keys, lambda redis_client, *command: redis_client.execute_raw(*command, len(keys), *keys, *args)
    )


def run_bulk_script(source: str, keys: list[str], args: list[str]):
    """``run_script`` for a bulk batch, whose keys and arguments are all strings: packed by
    hiredis in one call (``execute_packed``), not walked in Python argument by argument."""
    return _run(
        source,
        keys,
        lambda redis_client, *command: execute_packed(redis_client, *command, str(len(keys)), *keys, *args),
    )


def _run(source: str, keys: list[str], send):
    """``send(client, "EVALSHA", digest)`` where the script was sent before, else (or on NOSCRIPT)
    ``send(client, "EVAL", source)``, which the server caches."""
    redis_client = client()
    sha = _digest(source)
    sent = _sent(redis_client, sha, keys)
    if sent in _loaded:
        try:
            return send(redis_client, "EVALSHA", sha)
        except NoScriptError:
            pass
    reply = send(redis_client, "EVAL", source)
    _loaded.add(sent)
    return reply


def forget_sent() -> None:
    """Forget which scripts were sent where: each is sent whole on its next call, as by a new client
    (after a SCRIPT FLUSH this client was not told of, say)."""
    _loaded.clear()


@cache
def _digest(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


def load_everywhere(*sources: str) -> list[str]:
    """SCRIPT LOAD each source where scripts run: the server, or every primary of a cluster (one wave).
    For scripts queued on pipelines by their digest (EVALSHA), which cannot recover from a NOSCRIPT
    in the middle; returns the digests."""
    redis_client = client()
    if on_cluster():
        primaries = redis_client.primaries()
        redis_client.on_nodes([(node, ("SCRIPT", "LOAD", source)) for node in primaries for source in sources])
    else:
        pipe = redis_client.pipeline(transaction=False)
        for source in sources:
            pipe.script_load(source)
        pipe.execute()
    return [_digest(source) for source in sources]


def queue_loads(pipe, *sources: str) -> None:
    """SCRIPT LOAD each source ahead of the pipeline's calls: queued on ``pipe`` on one server (no round
    trip of its own); on a cluster, whose pipelines refuse SCRIPT LOAD, sent now to every primary."""
    if on_cluster():
        load_everywhere(*sources)
        return
    for source in sources:
        pipe.script_load(source)
