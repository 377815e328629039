"""The chain of command: the Lua every write that places an employee under a manager shares, and
the two writes that are only that, a move and a delete (with its handover of direct reports).

A move checks for a cycle by walking up from the new manager and changes the ``total`` counts
along the two chains of ancestors only, up to where they meet, so its cost grows with the depth of
the tree (at most ``conf.max_depth()`` levels) and never with the size of the subtree moved.
"""

from __future__ import annotations

from config.activity import Actor
from config.store import Busy, watch_retries
from orgchart import conf, keys
from orgchart.store.core import Script, events_key, written
from orgchart.store.names import NAMES

_MOVE = Script("prelude", "place", "move")


_HANDOVER = Script("prelude", "place", "hand", "handover")

_DELETE = Script("prelude", "place", "hand", "delete_employee")


def delete_employee(pk: int, successor: int | None, *, actor: Actor, name: str = "") -> str:
    """Delete an employee in one script; ``successor`` (None: the top) takes over the direct reports,
    refused when inside the employee's own team. ``name`` is the stored name the caller showed (see
    ``follow_renames``). Returns the name deleted.

    Past ``conf.handover_slice()`` direct reports, they are handed over first a slice per script
    (``_HANDOVER``), so no script touches more than a slice; the org is whole after each slice, and a
    refusal met on the way leaves the reports already handed over under the successor."""
    keys_ = [
        keys.employee(pk), keys.reports(pk), keys.employee_by_name(), keys.employee_names(), keys.roots(),
        events_key(),
    ]  # fmt: skip
    taker = [keys.employee(successor), keys.reports(successor)] if successor is not None else []
    keys_ += taker
    succ = "" if successor is None else str(successor)
    slice_keys = [keys.employee(pk), keys.reports(pk), keys.roots(), events_key(), *taker]

    def attempt(stored: str) -> list:
        most = conf.handover_slice()
        argv = [pk, succ, stored, keys.staff_names_suffix(), most, *limits()]
        reply = _DELETE([*keys_, *NAMES.keys_for(stored)], argv, actor)
        while reply[0] == "more":
            left = reply[1]
            while left > most:
                (left,) = written(_HANDOVER(slice_keys, [pk, succ, most, *limits()], actor))
            reply = _DELETE([*keys_, *NAMES.keys_for(stored)], argv, actor)
        return reply

    (deleted,) = written(follow_renames(attempt, name, pk))
    return deleted


def move_employee(pk: int, manager: int | None, *, actor: Actor) -> tuple[str, str]:
    """Put ``pk`` under ``manager`` (None: the top) with everyone below it, in one script that refuses
    a cycle. Returns the names of the employee and of the new manager."""
    new = "" if manager is None else str(manager)
    keys_ = [keys.employee(pk), keys.roots(), events_key()]
    if manager is not None:
        keys_ += [keys.employee(manager), keys.reports(manager)]
    who, boss = written(_MOVE(keys_, [pk, new, *limits()], actor, actor.link("employee", str(pk))))
    return who, boss


def limits() -> list:
    """What every placing script is given after its own arguments: the suffixes of a heights index
    and of a report name index, and the most levels of a chain of command."""
    return [keys.report_heights_suffix(), keys.report_names_suffix(), conf.max_depth()]


def follow_renames(attempt, name: str, pk: int) -> list:
    """The reply of ``attempt(name)``, a write script given the stored name its trigram sets are
    computed from. Where another is stored, the script writes nothing and answers ``{'renamed', the
    stored name}``: the call goes again with that one, up to ``watch_retries()`` times."""
    for _ in range(watch_retries()):
        reply = attempt(name)
        if reply[0] != "renamed":
            return reply
        name = reply[1]
    raise Busy(keys.employee(pk))
