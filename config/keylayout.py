"""Data written under an earlier key layout, moved to today's names by ``manage.py migrate_keys``.

Layout 1 named keys without hash tags (``school:course:42``) and kept one activity
stream, ``core:events``. Layout 2 gives every key the hash tag of its slot group
(``school:{school}:course:42``; docs/cluster.md) and one activity stream per
group. Layout 3 gives each location's sensor data a tag of its own
(``orgchart:{sensor-4}:location:4:temp:…``), so that it spreads over a cluster.
Each app declares in its keys.py how the names of earlier layouts map to today's
(``register_move``) and which of today's streams each of its layout-1 events
joins (``register_event_route``): this module only keeps those declarations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from config.keys import SIGNIN_EVENTS

LAYOUT = 3  # today's layout, written into the seed marker (``config.store.set_layout``)


@dataclass(frozen=True)
class Move:
    """An app's keys of an earlier layout: those SCAN MATCH ``glob`` finds, renamed by ``rename``."""

    app: str
    glob: str  # may match today's names too: ``rename`` answers None for those
    rename: Callable[[str], str | None]  # today's name of an earlier layout's key, or None: not one


_moves: list[Move] = []
_routes: dict[str, Callable[[dict[str, str]], str]] = {}


def register_move(app: str, glob: str, rename: Callable[[str], str | None]) -> None:
    _moves.append(Move(app, glob, rename))


def register_event_route(app: str, route: Callable[[dict[str, str]], str]) -> None:
    """``route(fields)``: the stream an old event of ``app`` (its stream entry's fields) joins."""
    _routes[app] = route


def moves(apps: list[str] | None = None) -> list[Move]:
    return [move for move in _moves if apps is None or move.app in apps]


def event_route(fields: dict[str, str]) -> str:
    """Today's stream for an old event, by its app; core's own (the sign-in stream) for the events
    of an app that declared no route, so that every old event finds a place."""
    route = _routes.get(fields.get("app", ""))
    return route(fields) if route else SIGNIN_EVENTS


def tagged(prefix: str, tag: str) -> Callable[[str], str | None]:
    """The rename of a layout-1 key ``<prefix><rest>`` to ``<prefix>{<tag>}:<rest>``: the app's whole
    keyspace in one slot group. A key already tagged is not a layout-1 key."""
    today = f"{prefix}{{{tag}}}:"

    def rename(key: str) -> str | None:
        if not key.startswith(prefix) or key.startswith(prefix + "{"):
            return None
        return today + key[len(prefix) :]

    return rename
