"""A post's history: a page of revisions, versions by number, and what changed under a stale editor."""

from __future__ import annotations

from cms import keys
from cms.documents import Between, Post, Revision
from cms.store import scripts
from cms.store.core import NotFound
from config.redis import client

# The current version's fields the history page shows; "version" first: the script reads its absence as no post.
HISTORY_FIELDS = ("version", "title", "author", "status", "last_saved_by", "created_at", "updated_at", "comment")
HISTORY_FIELDS += ("changed",)
_ROW = 8  # the fields the script answers per revision (see scripts.HISTORY)


def history(post_id: int, offset: int, limit: int) -> tuple[Post, list[Revision], int]:
    """The current version (without its body), one page of revisions newest first, and their count.

    One command (the HISTORY script): the snapshots are cut to the row's fields
    server-side, so no body crosses the wire and no JSON is decoded here; the
    revisions' posts carry no body either (the history page shows none).
    """
    post_key = keys.post(post_id)
    reply = scripts.script(scripts.HISTORY)(
        keys=[post_key, keys.revisions(post_id)], args=[offset, offset + limit - 1, *HISTORY_FIELDS]
    )
    if not reply:
        raise NotFound(post_key)
    width = len(HISTORY_FIELDS)
    current = Post.from_fields(post_id, {k: v for k, v in zip(HISTORY_FIELDS, reply) if v is not None})
    created = current.created_at
    revisions = [
        Revision(Post(post_id, title, "", author, status or "draft", by, created, float(at or 0), int(number or 0),
                      comment, tuple(filter(None, changed.split(",")))))
        for number, at, by, comment, changed, title, author, status in _rows(reply, width + 1)
    ]  # fmt: skip
    return current, revisions, reply[width]


def _rows(reply: list, start: int):
    """The script's flat revision fields, one row at a time."""
    values = iter(reply[start:])
    return zip(*[values] * _ROW)


def versions(post_id: int, numbers: tuple[int, ...]) -> tuple[Post, dict[int, Post]]:
    """The current post and the snapshots of the given version numbers (the current one included): one round trip.

    Raises NotFound for a missing post or a number that is neither a kept revision nor the current version.
    """
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.post(post_id))
    for number in numbers:
        pipe.zrangebyscore(keys.revisions(post_id), number, number)
    fields, *found = pipe.execute()
    if not fields:
        raise NotFound(keys.post(post_id))
    current = Post.from_fields(post_id, fields)
    snapshots = {}
    for number, raws in zip(numbers, found):
        if number == current.version:
            snapshots[number] = current
        elif raws:
            snapshots[number] = Revision.from_json(post_id, raws[0]).post
        else:
            raise NotFound(f"{keys.revisions(post_id)} has no revision {number}")
    return current, snapshots


def between(current: Post, base: int, base_raw: str | None, newer: list[str]) -> Between:
    """What was saved after version ``base``: the current version, the newer revisions (newest first)
    and the snapshot the editor started from (None when the cap trimmed it)."""
    saves = [Revision(current), *(Revision.from_json(current.id, raw) for raw in newer)]
    snapshot = Revision.from_json(current.id, base_raw).post if base_raw else None
    return Between(base, current, saves, snapshot)
