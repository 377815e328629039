"""The one module that sends Lua scripts, on one server and on a Redis Cluster alike.

A call is redis-py's ``Script``: EVALSHA, sent on a cluster to the node of the script's first key. A server
that lacks the script answers NOSCRIPT; ``Script`` then loads it and sends the call again. A pipeline
cannot recover in the middle: its scripts are loaded beforehand (``load``), or go ``whole`` (EVAL).

Every write script answers one flat array whose first element is its status, decoded here alone
(``outcome``): ``{'ok', ...}`` (the rest is the payload), ``{'missing', message, field}`` (field,
optional, the form field that named what is gone), ``{'refused', field, message, ...}`` (field '' for the
form as a whole) and ``{'conflict', ...}`` (the current state, for the conflict page).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from redis.client import Pipeline
from redis.commands.core import Script
from redis.exceptions import NoScriptError

from config.redis import client, on_cluster
from config.store import EditConflict, NotFound, Refused

_registered: dict[str, None] = {}  # every source registered or run, in order: what ``load()`` sends


def lua(anchor: str, *names: str) -> str:
    """The Lua of ``lua/<name>.lua`` beside the module ``anchor`` (its ``__file__``), joined in the order
    named: Lua lives in .lua files, where an editor and a linter can read it as Lua."""
    folder = Path(anchor).with_name("lua")
    return "\n".join((folder / f"{name}.lua").read_text() for name in names)


def register(source: str) -> str:
    """Note ``source`` as one of the scripts ``load()`` sends; returns it, for a module constant."""
    _registered.setdefault(source, None)
    return source


@cache
def _script(source: str) -> Script:
    """The ``Script`` of ``source`` (its digest worked out once); called with the client of the moment."""
    register(source)
    return client().register_script(source)


def run_script(source: str, keys: list, args: list = (), *, on=None, whole: bool = False):
    """Run a script (EVALSHA) on ``on`` (default: the domain client); ``whole``: EVAL, no NOSCRIPT."""
    redis_client = client() if on is None else on
    if whole:
        return redis_client.execute_command(*script_command(source, keys, args, whole=True))
    return _script(source)(keys=keys, args=args, client=redis_client)


def script_command(source: str, keys: list = (), args: list = (), whole: bool = False) -> tuple:
    """A script's call as a command to send as it is (EVALSHA, or ``whole`` EVAL), for a wave to nodes."""
    head = ("EVAL", source) if whole else ("EVALSHA", _script(source).sha)
    return (*head, len(keys), *keys, *args)


def outcome(reply: list, refused: type[Refused] = Refused) -> list:
    """The payload of an ``ok`` reply; else NotFound, ``refused`` (a Refused) or EditConflict."""
    status, *rest = reply
    if status == "ok":
        return rest
    if status == "missing":
        message, field = [*rest, "", ""][:2]
        raise NotFound(message, field or None)
    if status == "refused":
        raise refused.fields(dict(zip(rest[::2], rest[1::2])))
    if status == "conflict":
        raise EditConflict("Someone else changed this since you opened it.", current=rest)
    raise ValueError(f"a write script answered {status!r}")


def queue_script(
    pipe, source: str, keys: list[str], args: list = (), checked: bool = False, whole: bool = False
) -> None:
    """Queue a script's EVALSHA on ``pipe``; send it with ``execute``, ``load`` it beforehand, or ask for
    it ``checked`` (SCRIPT EXISTS first, on one server). ``whole``: EVAL, for pipelines sent elsewhere."""
    if checked and isinstance(pipe, Pipeline):
        _script(source)(keys=keys, args=args, client=pipe)
    else:
        pipe.execute_command(*script_command(source, keys, args, whole=whole))


def execute(pipe, writes: bool = False) -> list:
    """Execute a pipeline holding queued scripts. Where the server lacked one (NOSCRIPT: that call ran
    nothing), every script is loaded and the pipeline sent again: whole, or with ``writes`` only the
    refused calls (the others wrote; the calls must commute). The first error left is raised."""
    commands = list(pipe.command_stack)
    replies = pipe.execute(raise_on_error=False)
    refused = [n for n, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
    if refused:
        load()
        if writes:
            again = client().pipeline(transaction=False)
            again.command_stack = [commands[n] for n in refused]
            for n, reply in zip(refused, again.execute(raise_on_error=False)):
                replies[n] = reply
        else:
            pipe.command_stack = commands
            replies = pipe.execute(raise_on_error=False)
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies


def load(*sources: str, pipe=None) -> None:
    """SCRIPT LOAD ``sources`` (default: every one registered) where scripts run, or queued on ``pipe``."""
    sources = sources or tuple(_registered)
    for source in sources:
        register(source)
    if on_cluster():
        redis_client = client()
        calls = [(node, ("SCRIPT", "LOAD", source)) for node in redis_client.primaries() for source in sources]
        redis_client.on_nodes(calls)
        return
    queue = pipe if pipe is not None else client().pipeline(transaction=False)
    for source in sources:
        queue.script_load(source)
    if pipe is None:
        queue.execute()


def run_together(calls: list[tuple], queue) -> tuple[list, list, int]:
    """Run ``calls`` ((id, result, keys, args) each) in one MULTI/EXEC: the results written, the stale
    ids, how many were gone."""
    transaction = client().pipeline(transaction=True)
    for _, _, script_keys, args in calls:
        queue(transaction, script_keys, args)
    done, stale, gone = [], [], 0
    for (pk, result, _, _), reply in zip(calls, transaction.execute(raise_on_error=False) if calls else []):
        if isinstance(reply, Exception):
            raise reply
        try:
            outcome(reply)
            done.append(result)
        except EditConflict:
            stale.append(pk)
        except NotFound:
            gone += 1
    return done, stale, gone
