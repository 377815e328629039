"""Comments: a page of them, add and delete, through the shared referenced-children machinery."""

from __future__ import annotations

from dataclasses import dataclass, replace

from cms import keys
from cms.documents import Comment
from cms.store.core import APP, COMMENTS, NotFound
from config.activity import Actor
from config.redis import client
from config.store.ids import IdBlock

_IDS = IdBlock(keys.comment_ids())  # this process's block of comment ids


@dataclass(frozen=True)
class AddedComment:
    id: int
    post_title: str


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
    """A new comment; its id. See ``add_named_comment``."""
    return add_named_comment(post_id, author=author, text=text, at=at, actor=actor).id


def add_named_comment(post_id: int, *, author: str, text: str, at: float, actor: Actor) -> AddedComment:
    """A new comment and its post's title (for the message); the post's embed and count move with it in
    one round trip, its id from this process's block (``IdBlock``). NotFound for a missing post.
    ``author`` wrote it, ``actor`` wrote it to Redis; the event links to the post."""

    def event(comment_id: int):
        created = actor.event("created", APP, "comment", comment_id, text[:60])
        return replace(created, link=actor.link("post", str(post_id)))  # the comment has no screen: its post has

    fields = {"author": author, "text": text}
    comment_id, title = COMMENTS.add(_IDS, post_id, fields, at, event, label="title")
    return AddedComment(comment_id, title)


def draw_comment_ids() -> None:
    """Draw this process's block of comment ids now (a server does it at its first comment)."""
    _IDS.reserve()


def delete_named_comment(post_id: int, comment_id: int, *, actor: Actor) -> tuple[str, Comment]:
    """Delete a comment of this post; the post's title and the comment as they were (for the message).
    Two round trips (the embed's refill needs the newest ids as keys); NotFound for another post's."""
    event = actor.event("deleted", APP, "comment", comment_id, "a comment")
    event = replace(event, link=actor.link("post", str(post_id)))  # the comment has no screen: its post has
    title, fields = COMMENTS.delete_named(comment_id, event=event, expected_parent=post_id, label="title")
    return title, Comment.from_row({**fields, "id": str(comment_id)})


def delete_comment(post_id: int, comment_id: int, *, actor: Actor) -> Comment:
    """Delete a comment of this post and return it (NotFound if it belongs to another, nothing written)."""
    return delete_named_comment(post_id, comment_id, actor=actor)[1]


def get_comment(post_id: int, comment_id: int) -> tuple[str, Comment]:
    """The post's title and one of its comments, in one round trip (NotFound for another post's)."""
    pipe = client().pipeline(transaction=False)
    pipe.hget(keys.post(post_id), "title")
    pipe.hgetall(keys.comment(comment_id))
    title, fields = pipe.execute()
    if title is None or fields.get(COMMENTS.parent_field) != str(post_id):
        raise NotFound(keys.comment(comment_id))
    return title, Comment.from_row({"id": str(comment_id), **fields})
