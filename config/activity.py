"""Staff activity: the event every write appends, and the sign-in records.

Apps pass an ``Event`` to their store functions, which queue it with
``config.store.queue_event`` on the same MULTI/EXEC as the write itself, so
the log never shows a write that did not happen nor misses one that did.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime


@dataclass(frozen=True)
class Event:
    actor: str  # username of the signed-in user, or "seed"
    verb: str  # what happened: created, updated, deleted, enrolled, moved ...
    app: str
    entity: str  # product, review, course ...
    object_id: str
    label: str  # what to call the object in the feed
    link: str = ""  # URL path of the object's screen, if it still exists

    def fields(self) -> dict[str, str]:
        return {k: str(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class LoggedEvent(Event):
    stream_id: str = ""
    at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @classmethod
    def from_stream(cls, stream_id: str, fields: dict[str, str]) -> LoggedEvent:
        known = {k: fields.get(k, "") for k in Event.__dataclass_fields__}
        millis = int(stream_id.split("-", 1)[0])
        return cls(**known, stream_id=stream_id, at=datetime.fromtimestamp(millis / 1000, UTC))


@dataclass(frozen=True)
class SignIn:
    username: str
    address: str
    at: datetime
