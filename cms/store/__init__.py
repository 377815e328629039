"""The CMS's only code that talks to Redis: posts with their revisions (``posts``, the revision
layout explained there; ``revisions``; ``status``), the list (``listing``), comments
(``comments``), bulk writes (``bulk``), the Lua of the writes (``scripts``, ``lua/``) and the
integrity reads and repairs (``checks``)."""

from cms.conf import revisions_kept
from cms.store.bulk import (
    CommentLoad,
    posts_write,
    queue_new_post,
    reserve_comment_ids,
    reserve_post_ids,
)
from cms.store.comments import (
    AddedComment,
    add_comment,
    add_named_comment,
    comments_page,
    delete_comment,
    delete_named_comment,
    draw_comment_ids,
    get_comment,
)
from cms.store.core import APP, COMMENTS, TITLES, Busy, EditConflict, NotFound, entries
from cms.store.listing import SEARCH_LIMIT, SORT_LIMIT, SORTS, list_page, list_posts, post_labels, search_titles
from cms.store.posts import PostPage, create_post, delete_post, delete_posts, get_post, revert_post, save_post
from cms.store.revisions import history, versions
from cms.store.status import StatusChange, set_status

__all__ = [
    "APP", "COMMENTS", "TITLES", "Busy", "EditConflict", "NotFound", "entries", "revisions_kept",
    "PostPage", "get_post", "create_post", "save_post", "revert_post", "delete_post", "delete_posts",
    "history", "versions", "list_posts", "list_page", "SORT_LIMIT", "SORTS",
    "post_labels", "search_titles", "SEARCH_LIMIT", "comments_page", "add_comment", "add_named_comment",
    "AddedComment", "draw_comment_ids", "delete_named_comment", "delete_comment", "get_comment",
    "CommentLoad", "posts_write", "queue_new_post", "reserve_comment_ids", "reserve_post_ids",
    "StatusChange", "set_status",
]  # fmt: skip
