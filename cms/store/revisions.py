"""A post's history: a page of revisions, versions by number, and what changed under a stale editor."""

from __future__ import annotations

from cms import keys
from cms.documents import Between, HistoryRow, Post, Revision
from cms.store import scripts
from cms.store.core import NotFound
from config.redis import client
from config.store.scripts import run_script

# The current version's fields the history page shows; "version" first: the script reads its absence as no post.
HISTORY_FIELDS = ("version", "title", "author", "status", "last_saved_by", "created_at", "updated_at", "comment")
HISTORY_FIELDS += ("changed",)
_ROW = len(HistoryRow._fields)  # the fields the script answers per revision (see scripts.HISTORY)


def history(post_id: int, offset: int, limit: int) -> tuple[Post, list[HistoryRow], int]:
    """The current version (without its body), one page of revisions newest first, and their count: one
    script, which cuts the snapshots to a row's fields, so no body crosses the wire."""
    post_key = keys.post(post_id)
    reply = run_script(
        scripts.HISTORY, [post_key, keys.revisions(post_id)], [offset, offset + limit - 1, *HISTORY_FIELDS]
    )
    if not reply:
        raise NotFound(post_key)
    width = len(HISTORY_FIELDS)
    version, title, author, status, by, created, updated, comment, changed = reply[:width]  # HISTORY_FIELDS
    current = Post(
        post_id, title or "", "", author or "", status or "draft", by or "", float(created or 0),
        float(updated or 0), int(version), comment or "", tuple(changed.split(",")) if changed else (),
    )  # fmt: skip
    values = iter(reply[width + 1 :])
    rows = [
        HistoryRow(int(number or 0), float(at or 0), by, comment, tuple(changed.split(",")) if changed else (),
                   title, author, status or "draft")
        for number, at, by, comment, changed, title, author, status in zip(*[values] * _ROW)
    ]  # fmt: skip  # one comprehension, no call a row: a history page makes ten per request
    return current, rows, reply[width]


def versions(post_id: int, numbers: tuple[int, ...]) -> tuple[Post, dict[int, Post]]:
    """The current post and the snapshots of ``numbers`` (the current one may be among them): one round
    trip; NotFound for a missing post or a number neither kept nor current."""
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
