"""Every key name of the CMS, each declared once on the function that builds it.

Posts are hashes, each with a sorted set of revisions and one of comment ids; the list reads
sorted indexes scored by last save (one per status, one per author) and a lexicographic title index.
"""

import re

from config.keys import register_event_stream
from config.keyspace import keyspace

APP = "cms"
EVENTS = register_event_stream(APP)  # the activity stream this app's writes append to
keyspace.register_app(APP, "cms:")
key = keyspace.declarer(APP)

# An author is a username; only a string of this shape ever becomes part of a key.
AUTHOR_RE = re.compile(r"^[\w.@+-]{1,150}\Z")
STATUSES = ("draft", "published")

POST_URL = "/cms/posts/{id}/"
POST_SCREENS = ("cms:post_list", "cms:post_detail", "cms:post_edit", "cms:post_history", "cms:post_compare")
LIST = ("cms:post_list",)


@key(
    "string",
    "Enumerable keys (key-value design notes): id counter",
    "The last post id handed out (INCR).",
    why="INCR is atomic, so two editors creating posts at once never get the same id.",
)
def post_ids() -> str:
    return "cms:{cms}:ids:post"


@key(
    "string",
    "Enumerable keys (key-value design notes): id counter",
    "The last comment id handed out: INCRBY 100 draws a block for one server process, INCRBY n a seeder's batch.",
    why="INCRBY is atomic, so concurrent comments never share an id; a block spares each comment the round trip "
    "of drawing its own, and the add script refuses an id the counter has not reached or a comment holds.",
)
def comment_ids() -> str:
    return "cms:{cms}:ids:comment"


@key(
    "hash",
    "Revision pattern (current version) + partial embed",
    "A post: title, body, author, status, last saved by, times, version; with a JSON copy of its 3 newest "
    "comments and their count.",
    why="A hash holds the current version as flat fields, so the list reads only the summary fields with "
    "SORT … GET ->field and the post page reads one key. The embedded comments spare the post page a read of "
    "the comment hashes (the e-book's partial embed pattern).",
    screens=POST_SCREENS,
    index="cms:{cms}:index:updated",
    url=POST_URL,
)
def post(post_id: int | str) -> str:
    return f"cms:{{cms}}:post:{post_id}"


@key(
    "zset",
    "Revision pattern: history",
    "Every earlier version of a post as a JSON snapshot, scored by its version number.",
    why="Scored by number, one sorted set answers all the history needs: a page newest first (ZREVRANGE with "
    "offsets), one revision by number (ZRANGE BYSCORE n n) and the cap (ZREMRANGEBYRANK), each O(log n).",
    screens=("cms:post_history", "cms:post_compare", "cms:post_edit"),
    index="cms:{cms}:index:updated",
    url=POST_URL,
)
def revisions(post_id: int | str) -> str:
    return f"cms:{{cms}}:post:{post_id}:revisions"


@key(
    "zset",
    "Referenced one-to-many (source of truth of the partial embed)",
    "The ids of a post's comments, scored by when they were written.",
    scores="time",
    why="The sorted set is the source of truth for the post's comments; ZREVRANGE gives the newest for the embed "
    "and SORT … BY nosort LIMIT pages them with each comment's fields in one round trip.",
    screens=("cms:post_detail", "cms:comment_list", "cms:comment_add"),
    index="cms:{cms}:index:updated",
    url=POST_URL,
)
def post_comments(post_id: int | str) -> str:
    return f"cms:{{cms}}:post:{post_id}:comments"


@key(
    "hash",
    "Referenced one-to-many: child document",
    "A comment: post id, author, text, when.",
    why="Comments are unbounded, so each is a document of its own, referenced from its post's sorted set.",
    screens=("cms:comment_list",),
)
def comment(comment_id: int | str) -> str:
    return f"cms:{{cms}}:comment:{comment_id}"


@key(
    "zset",
    "Secondary index: sorted set",
    "Every post id, scored by when it was last saved: the post list's default order.",
    scores="time",
    why="A sorted set pages in time order (SORT … BY nosort LIMIT) and enumerates the posts without SCAN.",
    screens=LIST,
)
def by_updated() -> str:
    return "cms:{cms}:index:updated"


@key(
    "zset",
    "Secondary index: sorted set per value",
    "The ids of the posts in one status (draft, published), scored by when they were last saved.",
    scores="time",
    why="Scored like the main index, so a status filter is already in list order; two filters are one ZINTERSTORE.",
    screens=LIST,
)
def by_status(status: str) -> str:
    if status not in STATUSES and status != "*":
        raise ValueError(f"unknown status {status!r}")
    return f"cms:{{cms}}:index:status:{status}"


@key(
    "zset",
    "Secondary index: sorted set per value",
    "The ids of one author's posts, scored by when they were last saved.",
    scores="time",
    why="Scored like the main index, so the author filter reads in list order without sorting.",
    screens=LIST,
)
def by_author(author: str) -> str:
    if not AUTHOR_RE.match(author) and author != "*":
        raise ValueError(f"not an author name: {author!r}")
    return f"cms:{{cms}}:index:author:{author}"


@key(
    "zset",
    "Lexicographic index (key-value design notes)",
    "Every author with a post, as `casefolded author NUL author`, all scored 0: the author filter in any case.",
    why='The author filter finds its authors by a ZRANGEBYLEX of what was typed, casefolded ("ANN" and '
    '"an" find Ann), then reads their own indexes; kept by the writes that add an author\'s first post '
    "or take their last.",
    screens=LIST,
)
def authors() -> str:
    return "cms:{cms}:index:authors"


def author_member(author: str) -> str:
    """An author's member of the authors index: casefolded, NUL, as written."""
    return f"{author.casefold()}\x00{author}"


@key(
    "zset",
    "Lexicographic index (key-value design notes)",
    "Every post as `lowercased title NUL id`, all scored 0: title prefix search with ZRANGE BYLEX.",
    why="With equal scores a sorted set orders its members bytewise, so the titles starting with a prefix are "
    "one range, found in O(log n) instead of a scan.",
    screens=LIST,
)
def titles() -> str:
    return "cms:{cms}:index:title"


@key(
    "zset",
    "Scratch result",
    "A filtered or searched post list, built, paged and deleted within one MULTI/EXEC; never seen outside it.",
    why="Intersecting indexes server-side keeps the list to one round trip; the transaction makes the scratch "
    "key invisible to every other client.",
    screens=LIST,
)
def scratch(token: str) -> str:
    """A list query's intermediate result, created and deleted inside one MULTI/EXEC."""
    return f"cms:{{cms}}:tmp:{token}"


@key(
    "set",
    "Inverted index: trigrams (n-grams) of a name",
    "The ids of the posts whose title holds one three-character piece (`red` holds “Modeling in Redis”).",
    why="A search for any part of a title is SINTER of its pieces' sets, which Redis answers by walking the "
    "smallest, so its cost follows the rarest piece, not the number of posts; plain sets need no search "
    "module. Written in the post's own create, save, restore and delete, from the title the script checks "
    "is still stored.",
    screens=LIST,
)
def ngram(gram: str) -> str:
    """One piece's set of post ids; ``gram`` is three folded letters or digits (``ngrams.grams``), never raw input."""
    return f"cms:{{cms}}:ngram:{gram}"
