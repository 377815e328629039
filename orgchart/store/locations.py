"""Locations: reading one, a page or the form menu, the location page's staff, and creating,
renaming and deleting (with its staff's WORKS_AT edges and its sensor data), each one script."""

from __future__ import annotations

import time
from dataclasses import dataclass

from config.activity import Actor
from config.redis import client
from config.store.scripts import execute
from orgchart import conf, keys
from orgchart.documents import Employee, Location, fold
from orgchart.store import sensorchecks
from orgchart.store.core import (
    Script,
    events_key,
    name_page,
    pipeline,
    sorted_rows,
    written,
)

_CHOICES = Script("prelude", "location_choices")

_STAFF_PAGE = Script("prelude", "staff_page")

_DRAW = Script("prelude", "draw_location")

_SAVE = Script("prelude", "save_location")

_DELETE = Script("prelude", "delete_location")

_TOMBSTONE = Script("prelude", "tombstone")
UNLINK_CHUNK = 500  # bucket keys an UNLINK: no one command holds Redis for long (a year is 18,000 keys)


def get_location(pk: int) -> Location | None:
    data = client().hgetall(keys.location(pk))
    return Location.from_hash(pk, data) if data else None


def location_page(state) -> tuple[list[tuple[Location, int]], int, bool]:
    """One page of locations by name with their head counts, the total, and False (a prefix search
    is never capped, unlike ``employee_page``'s): one script, one round trip."""
    total, flat = name_page(keys.location_names(), state, "location")
    rows = [flat[i : i + 3] for i in range(0, len(flat), 3)]
    return [(Location(int(pk), name), int(staff)) for pk, name, staff in rows if name is not None], total, False


def queue_location_choices(pipe) -> None:
    _CHOICES.queue(pipe, [keys.location_names()], [conf.location_choices()])


def read_location_choices(reply) -> list[tuple[int, str]]:
    return [(int(reply[i]), reply[i + 1]) for i in range(0, len(reply), 2)]


def location_choices() -> list[tuple[int, str]]:
    """(id, name) of the first ``conf.location_choices()`` locations by name, for a form's menu:
    one round trip."""
    pipe = pipeline()
    queue_location_choices(pipe)
    return read_location_choices(execute(pipe)[0])


def save_location(pk: int | None, name: str, *, actor: Actor, version: str | None = None) -> int:
    """Create or rename a location in one script (a new one's id is drawn first, only once the name
    is free). A rename rewrites the name copied onto its staff. ``version``: the one the form was
    opened at; another stored refuses the save (``EditConflict``, with the location as stored)."""
    name = " ".join(name.split())
    creating = pk is None
    if creating:
        (pk,) = written(_DRAW([keys.location_by_name(), keys.location_ids()], [fold(name), name]))
    keys_ = [keys.location(pk), keys.staff(pk), keys.location_by_name(), keys.location_names(), events_key()]
    args = [pk, "1" if creating else "0", name, fold(name), "" if creating else version or ""]
    (saved,) = written(_SAVE(keys_, args, actor, actor.link("location", str(pk))), Location, pk)
    return int(saved)


def delete_location(pk: int, successor: int | None, *, actor: Actor) -> str:
    """Delete a location with its sensor data; its staff move to ``successor`` (None: no location).
    Returns the name deleted.

    The location lives in the graph's slot and its sensor data in a slot of its own
    (``keys.sensor_tag``), so on a cluster no one script can do both: the graph's script, sent with
    a read of the sensor's span, then ``forget_sensor``. A process that dies between the two leaves
    sensor data of a location that no longer exists: ``check_integrity --repair`` finishes the delete.
    """
    keys_ = [
        keys.location(pk), keys.staff(pk), keys.location_by_name(), keys.location_names(), events_key(),
        keys.staff_names(pk),
    ]  # fmt: skip
    if successor is not None:
        keys_ += [keys.location(successor), keys.staff(successor), keys.staff_names(successor)]
    pipe = pipeline()
    _DELETE.queue(pipe, keys_, [pk, "" if successor is None else str(successor)], actor)
    pipe.hmget(keys.temp_latest(pk), "first", "ts")
    deleted, (first, last) = execute(pipe)
    (name,) = written(deleted)
    forget_sensor(pk, (first, last))
    return name


def forget_sensor(pk: int, span: tuple[str | None, str | None] | None = None) -> None:
    """Remove a deleted location's sensor data and leave its tombstone.

    One round trip: the tombstone's script, then UNLINKs of every bucket named from ``span`` (the
    first and last reading the caller read; no scan), ``UNLINK_CHUNK`` keys a command, so other
    clients are served between them where one script would hold Redis long. With the tombstone down
    nothing lands any more; buckets of a reading that landed before it go in one more round trip.
    Without ``span`` (a repair), whatever is left of the location's keys is found by SCAN.
    """
    latest = keys.temp_latest(pk)
    first, last = span or (None, None)
    named = keys.sensor_keys(pk, int(first), int(last)) if first and last else []
    pipe = pipeline()
    _TOMBSTONE.queue(pipe, [latest], [int(time.time())])
    _queue_unlinks(pipe, named)
    held = tuple(execute(pipe)[0])
    if all(held):
        rest = set(keys.sensor_keys(pk, int(held[0]), int(held[1]))) - set(named)
    elif span is None:  # the tombstone may have been down already: whatever is left of the sensor's keys
        rest = {key for key in sensorchecks.location_keys(pk, keys.sensor_pattern(pk)) if key != latest}
    else:
        rest = set()
    if rest:
        pipe = pipeline()
        _queue_unlinks(pipe, sorted(rest))
        pipe.execute()


def _queue_unlinks(pipe, names: list[str]) -> None:
    """UNLINKs of one location's keys (one slot), ``UNLINK_CHUNK`` a command. Sent as a raw command:
    redis-py's cluster pipeline refuses a multi-key UNLINK, even of keys that share a slot."""
    for start in range(0, len(names), UNLINK_CHUNK):
        pipe.execute_command("UNLINK", *names[start : start + UNLINK_CHUNK])


@dataclass
class LocationOverview:
    location: Location
    staff: list[Employee]
    staff_count: int
    latest: dict[str, str]  # the sensor's newest reading, for the charts


def location_overview(pk: int, offset: int, count: int) -> LocationOverview | None:
    """The location, its head count, one page of staff by name and its sensor's newest reading: one
    round trip, whose cost follows the page and not the head count."""
    pipe = pipeline()
    pipe.hgetall(keys.location(pk))
    pipe.scard(keys.staff(pk))
    _STAFF_PAGE.queue(pipe, [keys.staff_names(pk)], [offset, count])
    pipe.hgetall(keys.temp_latest(pk))
    data, total, rows, latest = execute(pipe)
    if not data:
        return None
    staff = sorted_rows(rows)
    return LocationOverview(Location.from_hash(pk, data), staff, total, latest)
