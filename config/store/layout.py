"""Redis side of ``manage.py migrate_keys``: layout-1 keys renamed, the old activity stream split.

Every step is safe to run again: a key already renamed is no longer a layout-1 key,
and a batch of old events moves in one transaction (added to today's streams
under their own ids, removed from the old one), so a run stopped anywhere
resumes where it stopped.
"""

from __future__ import annotations

from config import keys
from config.redis import client


def scan_step(glob: str, cursor: int, count: int) -> tuple[int, list[str]]:
    """One SCAN step over ``glob``: the next cursor and the keys found."""
    cursor, found = client().scan(cursor, match=glob, count=count)
    return int(cursor), found


def rename_keys(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """RENAMENX each (old, new) pair in one round trip; the pairs whose new name was already taken
    (left as they were, for the caller to report)."""
    if not pairs:
        return []
    pipe = client().pipeline(transaction=False)
    for old, new in pairs:
        pipe.renamenx(old, new)
    return [pair for pair, renamed in zip(pairs, pipe.execute(raise_on_error=False)) if renamed is not True]


def old_events(count: int) -> list[tuple[str, dict[str, str]]]:
    """The oldest ``count`` events left in layout 1's stream."""
    return client().xrange(keys.layout_1_events(), count=count)


def old_event_count() -> int:
    return client().xlen(keys.layout_1_events())


def move_events(entries: list[tuple[str, dict[str, str], str]]) -> int:
    """Add each (id, fields, stream) to ``stream`` under its own id and remove them all from the old
    stream, in one transaction. Returns how many were added: an entry whose stream already holds a
    newer one (written since the upgrade) cannot keep its id, and is dropped."""
    if not entries:
        return 0
    pipe = client().pipeline(transaction=True)
    for entry_id, fields, stream in entries:
        pipe.xadd(stream, fields, id=entry_id)
    pipe.xdel(keys.layout_1_events(), *(entry_id for entry_id, _, _ in entries))
    replies = pipe.execute(raise_on_error=False)
    return sum(1 for reply in replies[:-1] if not isinstance(reply, Exception))


def drop_old_stream() -> None:
    """Remove layout 1's stream once emptied (XDEL leaves an empty stream behind); nothing writes it."""
    if client().xlen(keys.layout_1_events()) == 0:
        client().delete(keys.layout_1_events())


def layout() -> str:
    """The key layout the seed marker records ("" when it records none: layout 1, or no data)."""
    return client().hget(keys.seed_marker(), "layout") or ""


def set_layout(layout: int) -> None:
    """Record ``layout`` in the seed marker, only if there is one: data never seeded stays unmarked."""
    if client().exists(keys.seed_marker()):
        client().hset(keys.seed_marker(), "layout", str(layout))
