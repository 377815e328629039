"""Writing many posts at once (the seeder, the benchmark): whole histories, deep pipelines, one event a batch."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from cms import keys
from cms.documents import Post, Revision
from cms.store.core import APP, COMMENTS, TITLES, entries, score
from config.activity import Actor, Event
from config.redis import client
from config.store import queue_event
from config.store.children import Child


def queue_new_post(pipe, post: Post, event: Event | None, history: tuple[Post, ...] = ()) -> None:
    """Queue a post's hash, its revisions (a history loaded at once), its index entries and its event."""
    pipe.hset(keys.post(post.id), mapping={**post.to_fields(), **COMMENTS.initial_fields()})
    if history:
        pipe.zadd(keys.revisions(post.id), {Revision(p).to_json(): p.version for p in history})
    for key, member in entries(post):
        pipe.zadd(key, {member: score(key, post)})
    TITLES.queue_write(pipe, str(post.id), None, post.title)
    if event is not None:
        queue_event(pipe, event)


def load_posts(
    histories: list[list[Post]], *, actor: Actor, comments: Mapping[int, Sequence[Child]] | None = None
) -> int:
    """Write whole posts at once, each history every version oldest first: one MULTI/EXEC, one round trip.

    Per post, one HSET and one ZADD of its revisions; the index entries of the
    whole batch go in one ZADD per index (one SADD per title trigram), and the batch has one event, named
    after its first post. ``comments`` (post id -> comments with ids already
    drawn, see ``reserve_comment_ids``) go in through the shared bulk writer,
    with the post's embed and count written in its own HSET. Returns the
    commands queued (MULTI and EXEC aside).
    """
    if not histories:
        return 0
    comments = comments or {}
    pipe = client().pipeline(transaction=True)
    indexed: dict[str, dict[str, float]] = defaultdict(dict)
    pieces: dict[str, list[str]] = defaultdict(list)  # the title trigram sets, one SADD each
    for versions in histories:
        post = versions[-1]
        derived = COMMENTS.queue_bulk(pipe, post.id, comments.get(post.id, ()))
        pipe.hset(keys.post(post.id), mapping={**post.to_fields(), **derived})
        if len(versions) > 1:
            pipe.zadd(keys.revisions(post.id), {Revision(p).to_json(): p.version for p in versions[:-1]})
        for key, member in entries(post):
            indexed[key][member] = score(key, post)
        for gram_key in TITLES.keys_for(post.title):
            pieces[gram_key].append(str(post.id))
    for key, members in indexed.items():
        pipe.zadd(key, members)
    for key, members in pieces.items():
        pipe.sadd(key, *members)
    first = histories[0][-1]
    label = first.title if len(histories) == 1 else f"{first.title} and {len(histories) - 1} more posts"
    queue_event(pipe, actor.event("created", APP, "post", first.id, label))
    commands = len(pipe.command_stack)
    pipe.execute()
    return commands


def reserve_post_ids(count: int) -> int:
    """Take ``count`` ids at once; returns the first."""
    return client().incrby(keys.post_ids(), count) - count + 1


def reserve_comment_ids(count: int) -> int:
    """Take ``count`` comment ids at once; returns the first."""
    return client().incrby(keys.comment_ids(), count) - count + 1
