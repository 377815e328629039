"""Publish or unpublish many posts at once: one script, so the list never shows half a bulk change.

Each post changed is saved as a new version, as an edit of its status alone would be. One
already in the status is left as it is; one deleted meanwhile, or whose author changed since it
was read (its author index key was worked out from it), is skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.conf import settings

from cms import conf, keys
from cms.documents import OWN_FIELDS, SCHEMA
from cms.store.core import APP
from cms.store.scripts import SET_STATUS
from config.activity import Actor
from config.store import pipelined
from config.store.scripts import run_script


@dataclass(frozen=True)
class StatusChange:
    """What a bulk status change did: the titles changed, and the titles left as they were or skipped."""

    changed: list[str]
    unchanged: list[str]
    skipped: int  # deleted meanwhile, or their author changed since they were read


def set_status(post_ids: list[int], status: str, *, actor: Actor, at: float) -> StatusChange:
    """Set ``status`` on every post of ``post_ids``: two round trips (each post's author, whose index
    key the script needs, then the one script that checks and writes them all)."""
    if status not in keys.STATUSES:
        raise ValueError(f"unknown status {status!r}")
    authors = pipelined(post_ids, lambda pipe, pk: pipe.hget(keys.post(pk), "author"))
    script_keys = [keys.by_updated(), keys.by_status("draft"), keys.by_status("published"), keys.EVENTS]
    verb = "published" if status == "published" else "unpublished"
    args = [
        status, repr(at), actor.name, f"Bulk: {verb}", conf.revisions_kept(), json.dumps(OWN_FIELDS),
        settings.EVENTS_MAXLEN, SCHEMA,
    ]  # fmt: skip
    for pk, author in zip(post_ids, authors):
        author = author or ""
        indexed = bool(keys.AUTHOR_RE.match(author))
        script_keys += [keys.post(pk), keys.revisions(pk), keys.by_author(author) if indexed else keys.by_updated()]
        event = actor.event("updated", APP, "post", pk, "")
        fields = json.dumps([part for pair in event.fields().items() for part in pair], ensure_ascii=False)
        args += [pk, author, "1" if indexed else "0", fields]
    reply = run_script(SET_STATUS, script_keys, args)
    changed, unchanged, skipped = [], [], 0
    for i in range(0, len(reply), 3):
        what, title = reply[i + 1], reply[i + 2]
        if what == "changed":
            changed.append(title)
        elif what == "unchanged":
            unchanged.append(title)
        else:
            skipped += 1
    return StatusChange(changed, unchanged, skipped)
