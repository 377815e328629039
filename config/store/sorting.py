"""``SORT … GET`` inside a script: the same reply, its joins read by the script itself.

Redis Cluster refuses SORT's ``BY`` and ``GET`` patterns, even when every key they name shares the sorted
key's slot. ``SORT_LUA`` is a Lua function ``sort(key, ...)`` taking SORT's options and answering as SORT
would. A script may read any key of its own slot, so each app's keys sharing one hash tag (docs/cluster.md)
make the joins legal on a cluster. One code path for both: the read scripts prepend it and call ``sort``
where they called SORT, and ``queue_sort`` queues it where a pipeline sent SORT.
"""

from __future__ import annotations

from config.redis import on_cluster
from config.store.scripts import lua, queue_script

SORT_LUA = lua(__file__, "sort")  # the function ``sort(key, ...)``, for a read script to prepend

# KEYS: the key sorted. ARGV: SORT's options, as SORT takes them.
_SORT = SORT_LUA + "\nreturn sort(KEYS[1], unpack(ARGV))\n"
# The same, reading every option itself as on a cluster: the tests compare it with SORT on one server.
SCRIPT_ALONE = _SORT.replace("local sort_itself = true", "local sort_itself = false", 1)


def sort_options(
    start: int | None = None,
    num: int | None = None,
    by_nosort: bool = False,
    by: str | None = None,
    get=(),
    desc: bool = False,
    alpha: bool = False,
) -> list:
    """SORT's options as a list, in the words redis-py's ``sort`` takes them."""
    options: list = ["BY", "nosort"] if by_nosort else ["BY", by] if by else []
    if start is not None and num is not None:
        options += ["LIMIT", start, num]
    for pattern in get:
        options += ["GET", pattern]
    if desc:
        options.append("DESC")
    if alpha:
        options.append("ALPHA")
    return options


def queue_sort(pipe, key: str, itself: bool = False, **options) -> None:
    """Queue ``SORT key … GET …`` on ``pipe`` as the script: the same reply, on one server and on a cluster.
    Sent whole (EVAL): a pipeline cannot recover from a node that lacks a script's digest. Not SORT itself
    by default, even on one server: SORT may write (its STORE), so a server out of memory or a read-only
    replica refuses it, where a script's reads still run. ``itself``: SORT itself on one server, for a
    caller that such a server refuses anyway (a transaction that writes) or that need not outlive it: the
    script copies every element of the reply into Lua and back, which costs the server twice SORT's time
    for a page of rows."""
    if itself and not on_cluster():
        pipe.execute_command("SORT", key, *sort_options(**options))
    else:
        queue_script(pipe, _SORT, [key], sort_options(**options), whole=True)
