"""Posts: read one, create, save an edit, restore a revision, delete; each write one atomic round trip.

Revision layout: one sorted set per post, ``cms:post:<id>:revisions``, each member the JSON
snapshot of the post's own fields at one version, scored by that version. A save that changes
content turns version V into V+1 and, in the same script, adds the snapshot of V as revision V:
the revisions are 1..V-1 (or the newest ``CMS_REVISIONS_KEPT``), contiguous (``cms/integrity.py``).

No lost updates: the edit form carries the version it was loaded at, and the save script refuses
a stale one, answering with what was saved since, so the conflict page costs no further read.
No WATCH: the script is atomic.

A script cannot know beforehand which author's index a post leaves (the key names a value held
in the post): the store passes the author it expects; if the post holds another, the script
writes nothing and answers with it, and a second call passes its key. The old title's entry is a
member, not a key: each post keeps it in ``title_member``, since Lua cannot casefold as Python does.

Create draws its id first (INCR, then one MULTI/EXEC); delete reads the comment ids it must pass
as keys first: two round trips each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.conf import settings

from cms import conf, keys
from cms.documents import OWN_FIELDS, SCHEMA, Comment, Post, title_member
from cms.store import scripts
from cms.store.bulk import queue_new_post
from cms.store.core import APP, BETWEEN_SHOWN, COMMENTS, TITLES, Busy, EditConflict, NotFound
from cms.store.revisions import between
from config.activity import Actor, Event
from config.redis import client
from config.store import EditConflict as StaleEdit
from config.store import pipelined, watch_retries
from config.store.scripts import outcome, queue_script, run_script, run_together

DELETE_READS = ("version", "author", "title", "status", "title_member")  # what decides a delete's keys


@dataclass(frozen=True)
class PostPage:
    post: Post
    recent_comments: list[Comment]
    num_comments: int
    revisions_kept: int


def get_post(post_id: int) -> PostPage:
    """The post, its embedded newest comments and how many revisions it keeps: one round trip."""
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.post(post_id))
    pipe.zcard(keys.revisions(post_id))
    fields, kept = pipe.execute()
    if not fields:
        raise NotFound(keys.post(post_id))
    comments = [Comment.from_row(row) for row in COMMENTS.embedded(fields)]
    return PostPage(Post.from_fields(post_id, fields), comments, int(fields.get(COMMENTS.count_field) or 0), kept)


def create_post(content: dict[str, str], *, actor: Actor, comment: str, at: float) -> Post:
    """A new post at version 1 with its indexes and its event: INCR for the id, then one MULTI/EXEC."""
    post_id = client().incr(keys.post_ids())
    post = Post(
        id=post_id, **content, last_saved_by=actor.name, created_at=at, updated_at=at, comment=comment or "Created"
    )
    pipe = client().pipeline(transaction=True)
    queue_new_post(pipe, post, actor.event("created", APP, "post", post_id, post.title))
    pipe.execute()
    return post


def _flat(event: Event) -> str:
    return json.dumps([part for pair in event.fields().items() for part in pair], ensure_ascii=False)


def _author_key(author: str) -> tuple[str, str]:
    """(the author's index key, "1"), or a stand-in key and "0" for a malformed author that has none."""
    return (keys.by_author(author), "1") if keys.AUTHOR_RE.match(author) else (keys.by_updated(), "0")


def _run_save(
    post_id: int, number: int, content: dict | None, authors: list, titles: list, actor: Actor, at: float, comment: str
):
    """Call the save script (a restore without ``content``) until its guess of the (old, new) ``authors``
    and ``titles`` holds: normally the first call."""
    mode, label = ("save", content["title"]) if content else ("restore", "")
    member = title_member(post_id, label) if content else ""
    for _ in range(watch_retries()):
        (old_author, new_author), (old_title, new_title) = authors, titles
        old_key, old_indexed = _author_key(old_author)
        new_key, new_indexed = _author_key(new_author)
        leaves, joins = TITLES.diff(old_title, new_title)
        event = actor.event("updated", APP, "post", post_id, label)
        reply = run_script(
            scripts.SAVE,
            [
                keys.post(post_id), keys.revisions(post_id), keys.by_updated(), keys.titles(),
                keys.by_status("draft"), keys.by_status("published"), old_key, new_key, keys.EVENTS,
                keys.authors(), *leaves, *joins,
            ],
            [
                mode, number, old_author, new_author, old_indexed, new_indexed, repr(at), actor.name, comment,
                conf.revisions_kept(), member, json.dumps(content or {}, ensure_ascii=False),
                json.dumps(OWN_FIELDS), _flat(event), settings.EVENTS_MAXLEN, post_id, BETWEEN_SHOWN - 1, SCHEMA,
                old_title, new_title, len(leaves), keys.author_member(old_author), keys.author_member(new_author),
            ],
        )  # fmt: skip
        try:
            saved = outcome(reply)
        except StaleEdit as conflict:
            what, *now = conflict.current
            if what == "version":
                current = Post.from_fields(post_id, json.loads(now[0]))
                raise EditConflict(between(current, number, now[1] or None, now[2:])) from None
            authors, titles = now[:2], [now[3], now[2]]  # the guess of the keys was wrong: as stored
            if mode == "restore":
                member, label = title_member(post_id, titles[1]), titles[1]
            continue
        return Post.from_fields(post_id, json.loads(saved[0])) if saved else None  # None: nothing changed
    raise Busy(keys.post(post_id))


def save_post(
    post_id: int,
    content: dict[str, str],
    *,
    base_version: int,
    actor: Actor,
    comment: str,
    at: float,
    old_title: str | None = None,
    old_author: str | None = None,
) -> Post | None:
    """Save an edit made on ``base_version``; None when it changes nothing; EditConflict when stale.
    ``old_title`` and ``old_author`` (as the editor loaded them) name the trigram sets and author index
    the post leaves: one round trip; two when one was not given and the edit changes it."""
    title, author = content["title"], content["author"]
    authors = [author if old_author is None else old_author, author]
    titles = [title if old_title is None else old_title, title]
    return _run_save(post_id, base_version, content, authors, titles, actor, at, comment)


def revert_post(
    post_id: int, number: int, *, actor: Actor, at: float, author: str = "", titles: tuple[str, str] = ("", "")
) -> Post | None:
    """Save revision ``number``'s content as a new version; history is never rewritten. ``author`` and
    ``titles`` (current, revision's) as the history page knows them: one round trip, else two."""
    return _run_save(post_id, number, None, [author, author], list(titles), actor, at, f"Reverted to revision {number}")


def _delete_call(post_id: int, values: list, comment_ids: list[str], actor: Actor):
    """The post read, and the delete script's keys and arguments; None when it is gone."""
    fields = {name: value for name, value in zip(DELETE_READS, values) if value is not None}
    if "version" not in fields:
        return None
    post = Post.from_fields(post_id, fields)
    author_key, indexed = _author_key(fields.get("author", ""))
    member = fields.get("title_member") or post.title_member  # the entry the title index holds
    pieces = TITLES.keys_for(fields.get("title", ""))
    event = actor.event("deleted", APP, "post", post_id, post.title, gone=True)
    script_keys = [
        keys.post(post_id), keys.revisions(post_id), keys.post_comments(post_id), keys.by_updated(), keys.titles(),
        keys.by_status("draft"), keys.by_status("published"), author_key, keys.EVENTS, keys.authors(),
        *pieces, *(COMMENTS.child_key(i) for i in comment_ids),
    ]  # fmt: skip
    args = [
        fields.get("version", ""), fields.get("author", ""), indexed, member, post_id, _flat(event),
        settings.EVENTS_MAXLEN, fields.get("title", ""), len(pieces),
        keys.author_member(fields.get("author", "")), *comment_ids,
    ]  # fmt: skip
    return post, script_keys, args


def _queue_delete_reads(pipe, post_id: int) -> None:
    pipe.hmget(keys.post(post_id), DELETE_READS)
    pipe.zrange(keys.post_comments(post_id), 0, -1)


def delete_post(post_id: int, *, actor: Actor) -> Post:
    """Remove the post with its revisions, comments and index entries; returns it as it was. Two round
    trips: the script deletes only if the post and its comment ids are still as read, else reads again."""
    for _ in range(watch_retries()):
        call = _delete_call(post_id, *pipelined([post_id], _queue_delete_reads), actor)
        if call is None:
            raise NotFound(keys.post(post_id))
        post, script_keys, args = call
        try:
            outcome(run_script(scripts.DELETE, script_keys, args))
            return post
        except StaleEdit:  # changed since the read: read it again
            continue
    raise Busy(keys.post(post_id))


def delete_posts(post_ids: list[int], *, actor: Actor) -> tuple[list[Post], int]:
    """Remove many posts as ``delete_post`` does, their scripts in one MULTI/EXEC so the list never shows
    half a bulk delete: the posts deleted and how many were gone. A post changed in between is read again."""
    deleted, gone, remaining = [], 0, list(post_ids)
    for _ in range(watch_retries()):
        replies = pipelined(remaining, _queue_delete_reads)
        calls = []
        for post_id, values, comment_ids in zip(remaining, replies[::2], replies[1::2]):
            call = _delete_call(post_id, values, comment_ids, actor)
            if call is None:
                gone += 1
            else:
                calls.append((post_id, *call))
        done, remaining, missing = run_together(  # EVAL: no NOSCRIPT mid-MULTI
            calls, lambda pipe, script_keys, args: queue_script(pipe, scripts.DELETE, script_keys, args, whole=True)
        )
        deleted += done
        gone += missing
        if not remaining:
            return deleted, gone
    raise Busy(keys.post(remaining[0]))
