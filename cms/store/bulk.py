"""Writing many posts at once (the seeder, the benchmark, the import): whole histories, one event a batch."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence

from cms import conf, keys
from cms.documents import Post, Revision
from cms.store.core import APP, COMMENTS, TITLES, entries, score
from config.activity import Actor, Event
from config.redis import client
from config.store import queue_event
from config.store.bulk import BulkWrite
from config.store.children import Child


def kept(revisions: Sequence[Post]) -> Sequence[Post]:
    """The newest ``CMS_REVISIONS_KEPT`` of a history written at once, as a save would have kept them."""
    cap = conf.revisions_kept()
    return revisions[-cap:] if cap else revisions


def queue_new_post(pipe, post: Post, event: Event | None, history: tuple[Post, ...] = ()) -> None:
    """Queue a post's hash, its revisions (a history loaded at once), its index entries and its event."""
    pipe.hset(keys.post(post.id), mapping={**post.to_fields(), **COMMENTS.initial_fields()})
    history = kept(history)
    if history:
        pipe.zadd(keys.revisions(post.id), {Revision(p).to_json(): p.version for p in history})
    for key, member in entries(post):
        pipe.zadd(key, {member: score(key, post)})
    TITLES.queue_write(pipe, str(post.id), None, post.title)
    if event is not None:
        queue_event(pipe, event, keys.EVENTS)


BATCH_EVENT = "batch"


def posts_write(
    histories: list[list[Post]],
    *,
    actor: Actor,
    comments: Mapping[int, Sequence[Child]] | None = None,
    event: Event | str | None = BATCH_EVENT,
) -> int:
    """Write whole posts, each history oldest first, as one bulk script call (atomic, no reply per
    command); returns the commands it ran. The batch's index entries go in one ZADD per index, and it
    has one event named after its first post (``event``: that Event instead, or None, as an import's
    batches). ``comments``: post id -> comments with ids already drawn."""
    if not histories:
        return 0
    comments = comments or {}
    pipe = BulkWrite()
    indexed: dict[str, dict[str, float]] = defaultdict(dict)
    for versions in histories:
        post = versions[-1]
        derived = COMMENTS.queue_bulk(pipe, post.id, comments.get(post.id, ()))
        pipe.hset(keys.post(post.id), mapping={**post.to_fields(), **derived})
        if len(versions) > 1:
            pipe.zadd(keys.revisions(post.id), {Revision(p).to_json(): p.version for p in kept(versions[:-1])})
        for key, member in entries(post):
            indexed[key][member] = score(key, post)
    for key, members in indexed.items():
        pipe.zadd(key, members)  # one command a key: the bulk writer merges a key's additions
    titles = TITLES.members_by_set((str(versions[-1].id), versions[-1].title) for versions in histories)
    for key, members in titles.items():  # the title trigram sets, one SADD each
        pipe.sadd(key, *members)
    if event == BATCH_EVENT:
        first = histories[0][-1]
        label = first.title if len(histories) == 1 else f"{first.title} and {len(histories) - 1} more posts"
        event = actor.event("created", APP, "post", first.id, label)
    if event is not None:
        queue_event(pipe, event, keys.EVENTS)
    return pipe.send()


def reserve_post_ids(count: int) -> int:
    """Take ``count`` ids at once; returns the first."""
    return client().incrby(keys.post_ids(), count) - count + 1


def reserve_comment_ids(count: int) -> int:
    """Take ``count`` comment ids at once; returns the first."""
    return client().incrby(keys.comment_ids(), count) - count + 1


class CommentLoad:
    """Comments written in batches after their posts (an import's comments file), each ``load`` one
    MULTI/EXEC. A post's comments may be spread over the whole file, so its embed and count are kept
    here and written by ``finish``; its post must have been written without comments."""

    def __init__(self) -> None:
        self.newest: dict[int, list[dict[str, str]]] = {}
        self.counts: dict[int, int] = defaultdict(int)
        self.loaded = 0

    def load(self, children: Mapping[int, Sequence[Child]]) -> int:
        """Write one batch (post id -> its comments in this batch, ids already drawn); the commands queued."""
        pipe = client().pipeline(transaction=True)
        for post_id, batch in children.items():
            COMMENTS.queue_bulk(pipe, post_id, batch)  # the post's embed and count: written by finish()
            copies = []
            for child in batch:
                stored = self._stored(post_id, child)
                copies.append({"id": str(child.id), **{name: stored.get(name, "") for name in COMMENTS.embed_fields}})
            self.newest[post_id] = COMMENTS.newest(self.newest.get(post_id, []) + copies)
            self.counts[post_id] += len(batch)
            self.loaded += len(batch)
        commands = len(pipe.command_stack)
        pipe.execute()
        return commands

    @staticmethod
    def _stored(post_id: int, child: Child) -> dict[str, str]:
        """The comment's hash as the bulk writer stores it (what the embed copies)."""
        return {**child.fields, COMMENTS.parent_field: str(post_id), COMMENTS.time_field: repr(child.at)}

    def finish(self, event: Event | None = None, batch: int = 1000) -> None:
        """Write every post's embed and count, ``event`` in the last transaction."""
        posts = list(self.counts)
        for start in range(0, max(1, len(posts)), batch):
            pipe = client().pipeline(transaction=True)
            for post_id in posts[start : start + batch]:
                newest, count = json.dumps(self.newest[post_id]), str(self.counts[post_id])
                pipe.hset(keys.post(post_id), mapping={COMMENTS.embed_field: newest, COMMENTS.count_field: count})
            if event is not None and start + batch >= len(posts):
                queue_event(pipe, event, keys.EVENTS)
            if pipe.command_stack:
                pipe.execute()
