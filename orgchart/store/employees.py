"""Employees: reading one or a page of them, resolving typed names, and hiring and editing, each
write one script (two round trips for a hire: the id is drawn first). Moves and deletes, and the
Lua a hire or an edit shares with them to place someone under a manager, are in ``chain``.
"""

from __future__ import annotations

import re

from config.activity import Actor
from config.redis import client
from config.store.ngramtext import Query
from config.store.scripts import execute, lua, register, run_script
from config.store.sorting import SORT_LUA
from orgchart import keys
from orgchart.documents import Employee, fold
from orgchart.store.chain import follow_renames, limits
from orgchart.store.core import (
    Script,
    events_key,
    name_page,
    pipeline,
    sorted_rows,
    summaries,
    written,
)
from orgchart.store.locations import queue_location_choices, read_location_choices
from orgchart.store.names import NAMES, search_employee_ids

_ID = re.compile(r"#?([1-9][0-9]{0,17})")  # what INCR hands out: ASCII digits, 64-bit

_DRAW = Script("prelude", "place", "draw_employee")

_SAVE = Script("prelude", "place", "save_employee")


def get_employee(pk: int) -> Employee | None:
    data = client().hgetall(keys.employee(pk))
    return Employee.from_hash(pk, data) if data else None


# The columns the employee list sorts by beside the name, each a field of the employee hash, and whether
# its values are numbers.
SORT_FIELDS = {"title": ("title", False), "location": ("location_name", False), "direct": ("direct", True),
               "total": ("total", True)}  # fmt: skip
SORT_LIMIT = 5000  # the most employees the whole list is sorted by another column than the name (a script's read)

_BY_FIELD = register(SORT_LUA + "\n" + lua(__file__, "by_field"))


def employee_page(state) -> tuple[list[Employee], int, bool]:
    """One page of employees in name order, the total, and whether a search took ``SEARCH_LIMIT``
    matches and left more. A word of three characters or more finds any part of a name (the trigram
    index: two round trips, the ids then the fields); shorter text matches the start of the name
    (the lexical name index, the better tool for one or two letters: one script, one round trip)."""
    sorted_by = SORT_FIELDS.get(state.sort_key)
    if Query.parse(state.q).usable:
        found, capped = search_employee_ids(state.q)
        if sorted_by:
            found = _sorted_by(found, *sorted_by, state.descending)
        elif state.descending:
            found.reverse()
        total, pks = len(found), found[state.offset : state.offset + state.per_page]
    elif sorted_by:
        field, numeric = sorted_by
        args = [SORT_LIMIT, keys.employee_pattern(), field, int(numeric), int(state.descending), state.offset,
                state.per_page]  # fmt: skip
        reply = run_script(_BY_FIELD, [keys.employee_names()], args)
        if reply == [-1]:  # more employees than a sort by a field reads: search first (the page says so)
            raise TooManyToSort(SORT_LIMIT)
        total, pks, capped = reply[0], [int(pk) for pk in reply[1:]], False
    else:
        total, flat = name_page(keys.employee_names(), state, "employee")
        return sorted_rows(flat), total, False
    if not pks:
        return [], total, capped
    pipe = pipeline()
    for pk in pks:
        pipe.hmget(keys.employee(pk), *Employee.SUMMARY_FIELDS)
    return summaries(pks, pipe.execute()), total, capped


def employee_form_data(pk: int | None) -> tuple[Employee | None, list[tuple[int, str]]]:
    """What the employee form needs: the employee (None when ``pk`` is None or missing) and the
    location menu, in one round trip."""
    pipe = pipeline()
    if pk is not None:
        pipe.hgetall(keys.employee(pk))
    queue_location_choices(pipe)
    replies = execute(pipe)
    employee = Employee.from_hash(pk, replies[0]) if pk is not None and replies[0] else None
    return employee, read_location_choices(replies[-1])


def parse_employee_ref(text: str) -> int | str | None:
    """What a user typed for an employee: ``#12``/``12`` is an id (int), anything else a name.
    Only ASCII digits that fit an id count as one; ``#`` with anything else is no employee (None)."""
    text = text.strip()
    found = _ID.fullmatch(text)
    if found:
        return int(found.group(1))
    return None if text.startswith("#") else text


def resolve_employees(texts: list[str]) -> list[int | None]:
    """Ids for what users typed, names looked up together in one HMGET (ids are not checked
    here: every store function that takes an id refuses one that does not exist)."""
    refs = [parse_employee_ref(t) for t in texts]
    names = [fold(r) for r in refs if isinstance(r, str)]
    found = iter(client().hmget(keys.employee_by_name(), names) if names else [])
    out: list[int | None] = []
    for ref in refs:
        if isinstance(ref, str):
            value = next(found)
            out.append(int(value) if value else None)
        else:
            out.append(ref)
    return out


def resolve_employee(text: str) -> int | None:
    return resolve_employees([text])[0]


def save_employee(
    pk: int | None, values: dict, *, actor: Actor, old_name: str | None = None, version: str | None = None
) -> int:
    """Create (``pk`` None) or update an employee, its edges, counts, indexes and event in one
    script. A hire first draws its id in a script that refuses a taken name or a missing manager or
    location without drawing one. ``old_name``: the stored name the edit was made on (see
    ``follow_renames``). ``version``: the one the form was opened at; another stored refuses the save
    (``EditConflict``, with the employee as stored)."""
    name = " ".join(values["name"].split())
    manager, location = values.get("manager"), values.get("location")
    mgr, loc = ("" if manager is None else str(manager)), ("" if location is None else str(location))
    creating = pk is None
    if creating:
        draw_keys = [keys.employee_by_name(), keys.employee_ids()]
        draw_keys += [keys.employee(manager)] if manager is not None else []
        draw_keys += [keys.location(location)] if location is not None else []
        (pk,) = written(_DRAW(draw_keys, [fold(name), name, mgr, loc, *limits()]))
    keys_ = [keys.employee(pk), keys.employee_by_name(), keys.employee_names(), keys.roots(), events_key()]
    if location is not None:
        keys_ += [keys.location(location), keys.staff(location), keys.staff_names(location)]
    if manager is not None:
        keys_ += [keys.employee(manager), keys.reports(manager)]
    full = "1" if values.get("full_time", True) else "0"
    args = [pk, "1" if creating else "0", name, fold(name), values.get("title", ""), full, loc, mgr]
    shown = "" if creating else (name if old_name is None else old_name)
    link = actor.link("employee", str(pk))

    def attempt(stored: str) -> list:
        leaves, joins = NAMES.diff(stored, name)
        argv = [*args, stored, len(leaves), keys.staff_names_suffix(), "" if creating else version or "", *limits()]
        return _SAVE([*keys_, *leaves, *joins], argv, actor, link)

    (saved,) = written(follow_renames(attempt, shown, pk), Employee, pk)
    return int(saved)


class TooManyToSort(Exception):
    """The whole list is too long to sort by a field other than the name: a search narrows it first."""

    def __init__(self, limit: int):
        super().__init__(f"more than {limit} employees to sort")
        self.limit = limit


def _sorted_by(ids: list[int], field: str, numeric: bool, descending: bool) -> list[int]:
    """A search's ids (at most ``SEARCH_LIMIT``) by one field of theirs, their order so far breaking ties."""
    pipe = pipeline()
    for pk in ids:
        pipe.hget(keys.employee(pk), field)
    values = pipe.execute()
    keyed = [((float(v or 0) if numeric else (v or "").casefold()), rank, pk) for rank, (pk, v) in
             enumerate(zip(ids, values))]  # fmt: skip
    keyed.sort(key=lambda row: row[0], reverse=descending)
    return [pk for _, _, pk in keyed]
