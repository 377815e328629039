"""What every school store module shares: the refusals, the clock, lex members, and the scripts.

A write script (``lua/*.lua``, ``lua/lib.lua`` prepended) takes every key it touches in KEYS and one
JSON object of arguments, and answers as every write script does (``run``).
"""

from __future__ import annotations

import json
import time

from django.conf import settings

from config.activity import Actor
from config.store import Busy, EditConflict, NotFound, Refused, StoreError, watch_retries
from config.store.scripts import load, lua, outcome, queue_script, register, run_script
from config.store.sorting import SORT_LUA
from school import keys
from school.documents import sort_label

__all__ = ["Busy", "EditConflict", "NotFound", "Refused", "StoreError", "watch_retries"]

PICKER_LIMIT = 10
HOLDS_SHOWN = 50


def now_ms() -> int:
    return int(time.time() * 1000)


def lex_member(entity: str, pk: int, fields: dict[str, str]) -> str:
    return f"{sort_label(entity, fields)}\x00{pk}"


def lex_id(member: str) -> int:
    return int(member.rsplit("\x00", 1)[1])


SCRIPTS = (
    "assign",
    "unpair",
    "seat",
    "enrol_many",
    "save",
    "delete",
    "read_list",
    "read_course",
    "read_person",
    "algebra",
    "algebra_step",
)
# Take no JSON argument, so lib.lua is not prepended: the screens' reads and the set algebra, whose
# arguments are plain strings (no JSON to encode here or decode there).
STANDALONE = {"read_list", "read_course", "read_person", "algebra", "algebra_step"}
# Join ids with their fields as SORT … GET would, by ``sort`` (config.store.sorting): a cluster refuses
# SORT's GET patterns.
SORTING = {"read_course", "read_person", "algebra"}


def _source(name: str) -> str:
    own = lua(__file__, name)
    if name in SORTING:
        own = SORT_LUA + "\n" + own
    return register(own if name in STANDALONE else lua(__file__, "lib", name))


SOURCES = {name: _source(name) for name in SCRIPTS}


def load_scripts() -> None:
    """SCRIPT LOAD every school script in one round trip, so that each first write is one round trip too."""
    load(*SOURCES.values())


def run(name: str, script_keys: list[str], args: dict) -> list:
    """Run the write script ``name`` (the events stream appended to its keys): its ``ok`` payload, or the
    store error its reply means (``outcome``)."""
    encoded = json.dumps({**args, "events_maxlen": settings.EVENTS_MAXLEN}, ensure_ascii=False)
    return outcome(run_script(SOURCES[name], [*script_keys, keys.EVENTS], [encoded]))


def queue_run(pipe, name: str, script_keys: list[str], args: dict) -> None:
    """Queue ``run``'s call on a transaction, whole (EVAL: a MULTI cannot load a script in the middle)."""
    encoded = json.dumps({**args, "events_maxlen": settings.EVENTS_MAXLEN}, ensure_ascii=False)
    queue_script(pipe, SOURCES[name], [*script_keys, keys.EVENTS], [encoded], whole=True)


def read(name: str, script_keys: list[str], args: list) -> list:
    """Run the read script ``name`` with plain ``args``: its reply as Redis sent it."""
    return run_script(SOURCES[name], script_keys, args)


def event_args(actor: Actor, verb: str, entity: str, pk: int | str, label: str, *, gone: bool = False) -> dict:
    """The event's fields for a script; the label may hold {name} and {code}, filled there."""
    return actor.event(verb, keys.APP, entity, pk, label, gone=gone).fields()


def retried(attempt):
    """Call ``attempt()`` until it answers (not None), at most ``watch_retries()`` times, else Busy."""
    for _ in range(watch_retries()):
        result = attempt()
        if result is not None:
            return result
    raise Busy("Too many concurrent changes; please try again.")


def queue_size(pipe, side, pk: int) -> None:
    """Queue the size of a relation side's key (``keys.SIDES``): ZCARD of a roster, SCARD of a set."""
    key = side(pk)
    pipe.zcard(key) if keys.kind(side) == "zset" else pipe.scard(key)


def queue_has(pipe, side, pk: int, member: int) -> None:
    """Queue whether ``member`` is in a relation side's key: ZSCORE of a roster (None when not: an id
    scores at least 1), SISMEMBER of a set; either reply is true exactly when it is."""
    key = side(pk)
    pipe.zscore(key, member) if keys.kind(side) == "zset" else pipe.sismember(key, member)
