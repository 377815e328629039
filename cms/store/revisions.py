"""A post's history: a page of revisions, versions by number, and what changed under a stale editor."""

from __future__ import annotations

from cms import keys
from cms.documents import Between, Post, Revision
from cms.store.core import NotFound
from config.redis import client

HISTORY_FIELDS = ("title", "author", "status", "last_saved_by", "created_at", "updated_at", "version", "comment")
HISTORY_FIELDS += ("changed",)


def history(post_id: int, offset: int, limit: int) -> tuple[Post, list[Revision], int]:
    """The current version (without its body), one page of revisions newest first, and their count."""
    post_key, rev_key = keys.post(post_id), keys.revisions(post_id)
    pipe = client().pipeline(transaction=False)
    pipe.hmget(post_key, HISTORY_FIELDS)
    pipe.zcard(rev_key)
    pipe.zrevrange(rev_key, offset, offset + limit - 1)
    values, total, raws = pipe.execute()
    if values[HISTORY_FIELDS.index("version")] is None:
        raise NotFound(post_key)
    current = Post.from_fields(post_id, {k: v for k, v in zip(HISTORY_FIELDS, values) if v is not None})
    return current, [Revision.from_json(post_id, raw) for raw in raws], total


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
