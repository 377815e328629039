"""Staff activity: the event every write appends, and the sign-in records.

Views pass an ``Actor`` (who writes, and how to link to what they wrote) keyword-only to every store
write (``*, actor``). The store builds the ``Event`` with ``actor.event(...)`` and queues it with
``config.store.queue_event`` on the same transaction as the write itself, so the log never shows a
write that did not happen nor misses one that did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime


def _no_link(entity: str, object_id: str) -> str:
    return ""


@dataclass(frozen=True)
class Event:
    actor: str  # username of the signed-in user, or "seed"
    verb: str  # what happened: created, updated, deleted, enrolled, moved ...
    app: str
    entity: str  # product, review, course ...
    object_id: str
    label: str  # what to call the object in the feed
    link: str = ""  # URL path of the object's screen, if it still exists
    gone: bool = False  # a delete: the object has no screen any more

    def fields(self) -> dict[str, str]:
        """The stream entry's fields; ``gone`` is written only on a delete ("1")."""
        fields = {k: str(v) for k, v in asdict(self).items() if k != "gone"}
        if self.gone:
            fields["gone"] = "1"
        return fields


@dataclass(frozen=True)
class Actor:
    """Who writes (a username, or "seed"/"import"), and ``link(entity, object_id)``, the path of an
    object's screen, built by views from ``reverse`` so stores never know URLs."""

    name: str
    link: Callable[[str, str], str] = _no_link

    def event(self, verb: str, app: str, entity: str, object_id: int | str, label: str, *, gone: bool = False) -> Event:
        """The event for one write; ``gone`` for a delete, whose object has no screen any more."""
        object_id = str(object_id)
        return Event(self.name, verb, app, entity, object_id, label, "" if gone else self.link(entity, object_id), gone)


@dataclass(frozen=True)
class LoggedEvent(Event):
    stream_id: str = ""
    at: datetime = field(default_factory=lambda: datetime.now(UTC))
    deleted: bool = False  # its object was deleted since: the feed says so instead of linking to a 404

    @classmethod
    def from_stream(cls, stream_id: str, fields: dict[str, str]) -> LoggedEvent:
        known = {k: fields.get(k, "") for k in Event.__dataclass_fields__}
        known["gone"] = bool(known["gone"])
        millis = int(stream_id.split("-", 1)[0])
        return cls(**known, stream_id=stream_id, at=datetime.fromtimestamp(millis / 1000, UTC))


@dataclass(frozen=True)
class SignIn:
    username: str
    address: str
    at: datetime
