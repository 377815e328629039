"""What every part of the CMS store shares: the comment collection, the refusals, and a post's index entries."""

from __future__ import annotations

from cms import keys
from cms.documents import Between, Post
from config.store import Busy, NotFound
from config.store import EditConflict as StaleEdit
from config.store.children import ChildCollection
from config.store.ngrams import NgramIndex

APP = "cms"
BETWEEN_SHOWN = 10  # saves listed to an editor who lost a race
POST_INDEXED = ("status", "author", "title", "updated_at")  # the fields the list indexes derive from

COMMENTS = ChildCollection(
    parent_key=keys.post,
    child_key=keys.comment,
    index_key=keys.post_comments,
    ids_key=lambda post_id: keys.comment_ids(),
    parent_field="post",
    time_field="at",
    embed_field="recent_comments",
    embed_fields=("author", "text", "at"),
    count_field="num_comments",
    events_key=lambda post_id: keys.EVENTS,
)

# Post titles, searchable by any part: kept in the create, save, restore and delete scripts and the bulk loader.
TITLES = NgramIndex(
    gram_key=keys.ngram,
    temp_set=lambda token: keys.scratch(f"{token}:ngram"),
    temp_zset=keys.scratch,
    record_key=keys.post,
    text_field="title",
    order_key=keys.by_updated(),
)

__all__ = ["APP", "COMMENTS", "TITLES", "Busy", "EditConflict", "NotFound", "entries", "score"]


class EditConflict(StaleEdit):
    """The post was saved by someone else since the editor loaded it; ``between`` says what changed."""

    def __init__(self, between: Between):
        super().__init__(f"post {between.current.id} is at version {between.current.version}, not {between.base}")
        self.between = between


def entries(post: Post) -> list[tuple[str, str]]:
    """The (index key, member) pairs of a post in the list indexes; a malformed status or author has none."""
    member = str(post.id)
    found = [(keys.by_updated(), member), (keys.titles(), post.title_member)]
    if post.status in keys.STATUSES:
        found.append((keys.by_status(post.status), member))
    if keys.AUTHOR_RE.match(post.author):
        found.append((keys.by_author(post.author), member))
        found.append((keys.authors(), keys.author_member(post.author)))
    return found


def score(key: str, post: Post) -> float:
    """An index entry's score: 0 in the lexicographic title and author indexes, the last save elsewhere."""
    return 0 if key in (keys.titles(), keys.authors()) else post.updated_at
