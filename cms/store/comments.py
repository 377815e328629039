"""Comments: a page of them, add and delete, through the shared referenced-children machinery."""

from __future__ import annotations

from dataclasses import replace

from cms import keys
from cms.documents import Comment
from cms.store.core import APP, COMMENTS, NotFound
from config.activity import Actor
from config.redis import client


def comments_page(post_id: int, offset: int, limit: int) -> tuple[str, list[Comment], int]:
    """The post's title and one page of its comments, newest first, in one round trip."""
    pipe = client().pipeline(transaction=False)
    pipe.hget(keys.post(post_id), "title")
    COMMENTS.queue_page(pipe, post_id, offset, limit)
    title, *replies = pipe.execute()
    if title is None:
        raise NotFound(keys.post(post_id))
    rows, total = COMMENTS.page_from(replies)
    return title, [Comment.from_row(row) for row in rows], total


def add_comment(post_id: int, *, author: str, text: str, at: float, actor: Actor) -> int:
    """A new comment; the post's embed of the newest 3 and its count move with it.

    ``author`` is who wrote it, ``actor`` who wrote it to Redis (the same
    user on the screen, "seed" for the seeder); the event links to the post.
    """
    event = replace(actor.event("created", APP, "comment", "", text[:60]), link=actor.link("post", str(post_id)))
    return COMMENTS.add(post_id, {"author": author, "text": text}, at, event=event)


def delete_comment(post_id: int, comment_id: int, *, actor: Actor) -> Comment:
    """Delete a comment of this post and return it (NotFound if it belongs to another, nothing written)."""
    event = actor.event("deleted", APP, "comment", comment_id, "a comment")
    event = replace(event, link=actor.link("post", str(post_id)))  # the comment has no screen: its post has
    fields = COMMENTS.delete(comment_id, event=event, expected_parent=post_id)
    return Comment.from_row({**fields, "id": str(comment_id)})


def post_title(post_id: int) -> str | None:
    """The post's title, or None when there is no such post."""
    return client().hget(keys.post(post_id), "title")


def get_comment(post_id: int, comment_id: int) -> tuple[str, Comment]:
    """The post's title and one of its comments, in one round trip (NotFound for another post's)."""
    pipe = client().pipeline(transaction=False)
    pipe.hget(keys.post(post_id), "title")
    pipe.hgetall(keys.comment(comment_id))
    title, fields = pipe.execute()
    if title is None or fields.get(COMMENTS.parent_field) != str(post_id):
        raise NotFound(keys.comment(comment_id))
    return title, Comment.from_row({"id": str(comment_id), **fields})
