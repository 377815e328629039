"""Redis access for the CMS: posts with their revisions, the list indexes, comments.

Revision layout: one sorted set per post, ``cms:post:<id>:revisions``. Each
member is the JSON snapshot of the post's own fields as they were at one
version, and its score is that version number. A post starts at version 1; a
save that changes content turns version V into V+1 and, in the same
MULTI/EXEC, adds the snapshot of V as revision V. The revisions are therefore
numbers 1..V-1 (or the newest ``CMS_REVISIONS_KEPT`` of them), contiguous and
ending just below the post's version, which ``cms/integrity.py`` checks.

Why a sorted set scored by number rather than the alternatives:

- A list (LPUSH, the e-book's "insert at the beginning"): a page is an
  LRANGE, but revision N sits at index V-1-N, so a compare needs the version
  first (a second round trip) and LINDEX walks the list.
- A hash of number -> snapshot: revision N is one HGET, but a page newest
  first must know the version first, and trimming needs the oldest number
  kept as extra bookkeeping on the post.
- Embedding the history in the post document, as the e-book's RedisJSON
  post does: every read of the post would carry its whole history.

The sorted set does each job in one command without bookkeeping: a page
newest first is ZREVRANGE with offsets (pipelined with the post's HMGET), a
revision by number is ZRANGE BYSCORE n n, the cap is ZREMRANGEBYRANK in the
save's own transaction, and deleting a post drops one key. The cost: a
history page reads its snapshots whole, bounded by the page size.

No lost updates: a save WATCHes the post hash, reads it, checks the version
the editor loaded, and writes the new version, its revision and the index
entries in one MULTI/EXEC. Every write to a post's revisions or comments
also writes the post hash, so watching that one key is enough: a concurrent
save makes EXEC fail and the loop re-reads, finds the newer version, and
refuses with what changed in between.

Comments are the shared referenced-children machinery
(``config.store.children``): a hash per comment, a sorted set per post, and a
JSON copy of the 3 newest on the post hash, kept right in the same
transaction as each add and delete.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.conf import settings

from cms import keys
from cms.documents import SUMMARY, Between, Comment, Post, PostSummary, Revision
from config.activity import Event
from config.listing import ListState
from config.redis import client
from config.store import Conflict, batched, queue_event, transact
from config.store.children import ChildCollection, NotFound

__all__ = ["NotFound", "EditConflict", "Busy", "COMMENTS"]

APP = "cms"
RETRIES = 20
TITLE_CHARS = 200  # of the lowercased title kept in the prefix index
BETWEEN_SHOWN = 10  # saves listed to an editor who lost a race
HISTORY_FIELDS = ("title", "author", "status", "last_saved_by", "created_at", "updated_at", "version", "comment")
HISTORY_FIELDS += ("changed",)
POST_INDEXED = ("status", "author", "title", "updated_at")  # the fields the list indexes derive from

COMMENTS = ChildCollection(
    parent_key=keys.post,
    child_key=keys.comment,
    index_key=keys.post_comments,
    ids_key=keys.comment_ids(),
    parent_field="post",
    time_field="at",
    embed_field="recent_comments",
    embed_fields=("author", "text", "at"),
    count_field="num_comments",
)

# Title prefix search, filtered, into a scratch sorted set scored like the list
# index. KEYS: title index, scratch key, then one or more sorted indexes a post
# must be in (the first gives the score). ARGV: the BYLEX range.
_PREFIX_SEARCH = """
local matches = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2])
local found = 0
for _, member in ipairs(matches) do
  local id = string.match(member, '%z(%d+)$')
  local score = id and redis.call('ZSCORE', KEYS[3], id)
  for i = 4, #KEYS do
    if score and not redis.call('ZSCORE', KEYS[i], id) then score = false end
  end
  if score then
    redis.call('ZADD', KEYS[2], score, id)
    found = found + 1
  end
end
return found
"""


class EditConflict(Exception):
    """The post was saved by someone else since the editor loaded it."""

    def __init__(self, between: Between):
        super().__init__(f"post {between.current.id} is at version {between.current.version}, not {between.base}")
        self.between = between


class Busy(Conflict):
    """The post kept changing under us past RETRIES attempts."""


def revisions_kept() -> int:
    """The cap on revisions per post; 0 keeps all."""
    return int(getattr(settings, "CMS_REVISIONS_KEPT", 0) or 0)


def title_member(post: Post) -> str:
    return f"{post.title.casefold()[:TITLE_CHARS]}\x00{post.id}"


# --- reads --------------------------------------------------------------------


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
    return PostPage(
        Post.from_fields(post_id, fields),
        [Comment.from_row(row) for row in COMMENTS.embedded(fields)],
        int(fields.get(COMMENTS.count_field) or 0),
        kept,
    )


def list_posts(state: ListState) -> tuple[list[PostSummary], int]:
    """One page of the post list and its total, in one round trip.

    The source is a sorted index scored by when each post was last saved: the
    whole list, one status, one author, or (for two filters or a title
    search) a scratch set built in the same MULTI/EXEC. SORT … BY nosort keeps
    that order, applies LIMIT as a range and joins each id to only the summary
    fields (GET cms:post:*->title …): no body and no revision is read.
    """
    filters = []
    if state.filters.get("status"):
        filters.append(keys.by_status(state.filters["status"]))
    if state.filters.get("author"):
        filters.append(keys.by_author(state.filters["author"]))
    prefix = state.q.replace("\x00", "").casefold()
    scratch = keys.scratch(uuid.uuid4().hex) if prefix or len(filters) > 1 else ""
    pipe = client().pipeline(transaction=bool(scratch))
    if prefix:
        indexes = filters or [keys.by_updated()]
        low, high = b"[" + prefix.encode(), b"(" + prefix.encode() + b"\xff"
        pipe.eval(_PREFIX_SEARCH, 2 + len(indexes), keys.titles(), scratch, *indexes, low, high)
        source = scratch
    elif scratch:
        pipe.zinterstore(scratch, filters, aggregate="MAX")
        source = scratch
    else:
        source = filters[0] if filters else keys.by_updated()
    pipe.zcard(source)
    gets = ["#", *(f"{keys.post('*')}->{name}" for name in SUMMARY)]
    pipe.sort(source, start=state.offset, num=state.per_page, by="nosort", get=gets, desc=state.order != "updated")
    if scratch:
        pipe.delete(scratch)
    replies = pipe.execute()
    total, flat = replies[-3:-1] if scratch else replies[-2:]
    width = 1 + len(SUMMARY)
    rows = [dict(zip(("id", *SUMMARY), flat[i : i + width])) for i in range(0, len(flat), width)]
    return [PostSummary.from_row(row) for row in rows if row["title"] is not None], total


def history(post_id: int, offset: int, limit: int) -> tuple[Post, list[Revision], int]:
    """The current version (without its body), one page of revisions newest first, and their count."""
    post_key, rev_key = keys.post(post_id), keys.revisions(post_id)
    pipe = client().pipeline(transaction=False)
    pipe.hmget(post_key, HISTORY_FIELDS)
    pipe.zcard(rev_key)
    pipe.zrevrange(rev_key, offset, offset + limit - 1)
    values, total, raws = pipe.execute()
    if values[HISTORY_FIELDS.index("version")] is None:
        raise NotFound(post_key)
    current = Post.from_fields(post_id, {k: v for k, v in zip(HISTORY_FIELDS, values) if v is not None})
    return current, [Revision.from_json(post_id, raw) for raw in raws], total


def versions(post_id: int, numbers: tuple[int, ...]) -> tuple[Post, dict[int, Post]]:
    """The current post and the snapshots of the given version numbers (the current one included): one round trip.

    Raises NotFound for a missing post or a number that is neither a kept revision nor the current version.
    """
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


# --- writes -------------------------------------------------------------------


def _entries(post: Post) -> list[tuple[str, str]]:
    """The (index key, member) pairs of a post in the list indexes; a malformed status or author has none."""
    member = str(post.id)
    entries = [(keys.by_updated(), member), (keys.titles(), title_member(post))]
    if post.status in keys.STATUSES:
        entries.append((keys.by_status(post.status), member))
    if keys.AUTHOR_RE.match(post.author):
        entries.append((keys.by_author(post.author), member))
    return entries


def _queue_indexes(pipe, new: Post, old: Post | None) -> None:
    """Point the list indexes at the post's new state (and away from its old one)."""
    current = _entries(new)
    if old is not None:
        for key, member in _entries(old):
            if (key, member) not in current:
                pipe.zrem(key, member)
    for key, member in current:
        pipe.zadd(key, {member: 0 if key == keys.titles() else new.updated_at})


def _queue_unindex(pipe, post: Post) -> None:
    for key, member in _entries(post):
        pipe.zrem(key, member)


def _queue_revision(pipe, previous: Post) -> None:
    """Keep the previous version as a revision, and trim to the cap when there is one."""
    rev_key = keys.revisions(previous.id)
    pipe.zadd(rev_key, {Revision(previous).to_json(): previous.version})
    cap = revisions_kept()
    if cap:
        pipe.zremrangebyrank(rev_key, 0, -(cap + 1))


def queue_new_post(pipe, post: Post, event: Event, history: tuple[Post, ...] = ()) -> None:
    """Queue a post's hash, its revisions (seeding loads a history at once), its index entries and its event."""
    pipe.hset(keys.post(post.id), mapping={**post.to_fields(), **COMMENTS.initial_fields()})
    if history:
        pipe.zadd(keys.revisions(post.id), {Revision(p).to_json(): p.version for p in history})
    _queue_indexes(pipe, post, None)
    queue_event(pipe, event)


def load_posts(histories: list[list[Post]], *, by: str, link: Callable[[int], str]) -> None:
    """Write whole posts at once (the seeder): each history is every version, oldest first; one transaction."""
    pipe = client().pipeline(transaction=True)
    for versions in histories:
        post = versions[-1]
        event = Event(by, "created", APP, "post", str(post.id), post.title, link(post.id))
        queue_new_post(pipe, post, event, history=tuple(versions[:-1]))
    pipe.execute()


def reserve_post_ids(count: int) -> int:
    """Take ``count`` ids at once; returns the first."""
    return client().incrby(keys.post_ids(), count) - count + 1


def create_post(content: dict[str, str], *, by: str, comment: str, at: float, link: Callable[[int], str]) -> Post:
    """A new post at version 1, its indexes and its event in one transaction. ``link(id)`` is its URL."""
    post_id = client().incr(keys.post_ids())
    post = Post(id=post_id, **content, last_saved_by=by, created_at=at, updated_at=at, comment=comment or "Created")
    pipe = client().pipeline(transaction=True)
    queue_new_post(pipe, post, Event(by, "created", APP, "post", str(post_id), post.title, link(post_id)))
    pipe.execute()
    return post


def _watched(watch: tuple[str, ...], attempt):
    """Run ``attempt(pipe)`` under WATCH on ``watch`` until its EXEC goes through; bounded retries.

    ``attempt`` reads (immediate commands), calls ``pipe.multi()``, queues its
    writes and returns what to give back once ``pipe.execute()`` succeeds; or
    returns before ``multi()`` to write nothing.
    """
    try:
        return transact(attempt, watch=watch, retries=RETRIES)
    except Conflict:
        raise Busy(watch[0]) from None


def _revise(post_id: int, prepare, *, by: str, at: float, link: str) -> Post | None:
    """Read-modify-write of a post under WATCH: ``prepare(pipe, current)`` returns (content, comment).

    Returns the new version, or None when the content is what the post
    already holds (no revision, no write).
    """
    post_key = keys.post(post_id)

    def attempt(pipe):
        fields = pipe.hgetall(post_key)
        if not fields:
            raise NotFound(post_key)
        current = Post.from_fields(post_id, fields)
        content, comment = prepare(pipe, current)
        new = current.saved(content, by, comment, at)
        if new is None:
            return None
        pipe.multi()
        _queue_revision(pipe, current)
        pipe.hset(post_key, mapping=new.to_fields())
        _queue_indexes(pipe, new, current)
        queue_event(pipe, Event(by, "updated", APP, "post", str(post_id), new.title, link))
        return new

    return _watched((post_key,), attempt)


def save_post(
    post_id: int, content: dict[str, str], *, base_version: int, by: str, comment: str, at: float, link: str
) -> Post | None:
    """Save an edit made on ``base_version``; None when it changes nothing.

    Raises EditConflict, writing nothing, when the post is no longer at
    ``base_version``: the editor's text would otherwise overwrite someone
    else's save.
    """

    def prepare(pipe, current: Post):
        if current.version != base_version:
            raise EditConflict(_between(pipe, current, base_version))
        return content, comment

    return _revise(post_id, prepare, by=by, at=at, link=link)


def revert_post(post_id: int, number: int, *, by: str, at: float, link: str) -> Post | None:
    """Save revision ``number``'s content as a new version; history is never rewritten."""

    def prepare(pipe, current: Post):
        raws = pipe.zrangebyscore(keys.revisions(post_id), number, number)
        if not raws:
            raise NotFound(f"{keys.revisions(post_id)} has no revision {number}")
        return Revision.from_json(post_id, raws[0]).post.content(), f"Reverted to revision {number}"

    return _revise(post_id, prepare, by=by, at=at, link=link)


def _between(pipe, current: Post, base: int) -> Between:
    """What was saved after version ``base`` (read under the same WATCH)."""
    rev_key = keys.revisions(current.id)
    base_raw = pipe.zrangebyscore(rev_key, base, base)
    newer = pipe.zrevrangebyscore(rev_key, "+inf", f"({base}", start=0, num=BETWEEN_SHOWN - 1)
    saves = [Revision(current), *(Revision.from_json(current.id, raw) for raw in newer)]
    snapshot = Revision.from_json(current.id, base_raw[0]).post if base_raw else None
    return Between(base, current, saves, snapshot)


def delete_post(post_id: int, *, by: str) -> Post:
    """Remove the post, its revisions, its comments and its index entries in one transaction.

    WATCHing the comment set too means a comment added meanwhile makes the
    delete retry and take it along, instead of leaving it behind.
    """
    post_key, comments_key = keys.post(post_id), keys.post_comments(post_id)

    def attempt(pipe):
        fields = pipe.hgetall(post_key)
        if not fields:
            raise NotFound(post_key)
        post = Post.from_fields(post_id, fields)
        comment_ids = pipe.zrange(comments_key, 0, -1)
        pipe.multi()
        pipe.unlink(post_key, keys.revisions(post_id))
        COMMENTS.queue_delete_all(pipe, post_id, comment_ids)
        _queue_unindex(pipe, post)
        queue_event(pipe, Event(by, "deleted", APP, "post", str(post_id), post.title))
        return post

    return _watched((post_key, comments_key), attempt)


def add_comment(post_id: int, *, author: str, text: str, at: float, link: str, by: str = "") -> int:
    """A new comment; the post's embed of the newest 3 and its count move with it.

    ``by`` is the actor of the event when it is not the author (the seeder).
    """
    event = Event(by or author, "created", APP, "comment", "", text[:60], link)
    return COMMENTS.add(post_id, {"author": author, "text": text}, at, event=event)


def delete_comment(post_id: int, comment_id: int, *, by: str, link: str) -> None:
    """Delete a comment of this post (NotFound if it belongs to another)."""
    if client().hget(keys.comment(comment_id), COMMENTS.parent_field) != str(post_id):
        raise NotFound(keys.comment(comment_id))
    COMMENTS.delete(comment_id, event=Event(by, "deleted", APP, "comment", str(comment_id), "a comment", link))


# --- integrity reads and repairs (cms/integrity.py) -----------------------------


def _scan(match: str) -> Iterator[str]:
    yield from client().scan_iter(match=match, count=1000)


def post_ids_in_index(batch: int = 1000) -> Iterator[int]:
    """Every id of the main index, in chunks by rank (never one unbounded read)."""
    start = 0
    while True:
        chunk = client().zrange(keys.by_updated(), start, start + batch - 1)
        yield from (int(i) for i in chunk)
        if len(chunk) < batch:
            return
        start += batch


def post_ids_in_keys() -> Iterator[int]:
    """Every id that has a post hash, by SCAN."""
    for key in _scan(keys.post("*")):
        tail = key.removeprefix(keys.post(""))
        if tail.isdigit():
            yield int(tail)


def revision_bounds(ids) -> Iterator[tuple[int, int | None, int, int | None, int | None]]:
    """(post id, version, revisions kept, lowest number, highest number) for each post."""
    for chunk in batched(ids):
        pipe = client().pipeline(transaction=False)
        for post_id in chunk:
            rev_key = keys.revisions(post_id)
            pipe.hget(keys.post(post_id), "version")
            pipe.zcard(rev_key)
            pipe.zrange(rev_key, 0, 0, withscores=True)
            pipe.zrange(rev_key, -1, -1, withscores=True)
        replies = pipe.execute()
        for n, post_id in enumerate(chunk):
            version, count, low, high = replies[4 * n : 4 * n + 4]
            yield (
                post_id,
                int(version) if version is not None else None,
                count,
                int(low[0][1]) if low else None,
                int(high[0][1]) if high else None,
            )


def trim_revisions() -> None:
    """Apply the cap to every post (after the setting was lowered)."""
    cap = revisions_kept()
    if not cap:
        return
    for chunk in batched(post_ids_in_index()):
        pipe = client().pipeline(transaction=False)
        for post_id in chunk:
            pipe.zremrangebyrank(keys.revisions(post_id), 0, -(cap + 1))
        pipe.execute()


def index_entries(ids) -> Iterator[tuple[Post, list[tuple[str, str]]]]:
    """For each post: the (index, member) entries it should have that its indexes lack."""
    for chunk in batched(ids):
        posts = [
            Post.from_fields(post_id, {k: v for k, v in fields.items() if v is not None})
            for post_id, fields in zip(chunk, posts_fields(chunk, POST_INDEXED))
        ]
        expected = [_entries(post) for post in posts]
        pipe = client().pipeline(transaction=False)
        for entries in expected:
            for key, member in entries:
                pipe.zscore(key, member)
        held = iter(pipe.execute())
        for post, entries in zip(posts, expected):
            yield post, [entry for entry in entries if next(held) is None]


def stale_index_members(batch: int = 500) -> Iterator[tuple[str, str]]:
    """(index key, member) for every index member that is not an entry of an existing post, by ZSCAN."""
    index_keys = [keys.by_updated(), keys.titles(), *_scan("cms:index:status:*"), *_scan("cms:index:author:*")]
    for key in index_keys:
        members = [member for member, _ in client().zscan_iter(key, count=1000)]
        for start in range(0, len(members), batch):
            chunk = members[start : start + batch]
            ids = [int(t) if (t := m.rsplit("\x00", 1)[-1]).isdigit() else 0 for m in chunk]
            for member, post_id, fields in zip(chunk, ids, posts_fields(ids, POST_INDEXED)):
                if fields["updated_at"] is None:
                    yield key, member
                    continue
                post = Post.from_fields(post_id, {k: v for k, v in fields.items() if v is not None})
                if (key, member) not in _entries(post):
                    yield key, member


def embeds(ids) -> Iterator[tuple[int, dict[str, str | None], list[dict[str, str]], int]]:
    """Each post's embedded comments and count as stored, beside the 3 newest and the count its
    comment set gives: four round trips per 500 posts."""
    names = (COMMENTS.embed_field, COMMENTS.count_field)
    for chunk in batched(ids):
        newest, counts = COMMENTS.expected_embeds(chunk), COMMENTS.aggregates(chunk)
        for post_id, fields in zip(chunk, posts_fields(chunk, names)):
            yield post_id, fields, newest[post_id], counts[post_id][0]


def posts_fields(ids: list[int], names: tuple[str, ...]) -> list[dict[str, str | None]]:
    pipe = client().pipeline(transaction=False)
    for post_id in ids:
        pipe.hmget(keys.post(post_id), list(names))
    return [dict(zip(names, values)) for values in pipe.execute()]


def comment_parents() -> Iterator[tuple[int, str | None, bool]]:
    """(comment id, its post id, whether its post's set holds it) for every comment hash, by SCAN."""
    found = [int(k.removeprefix(keys.comment(""))) for k in _scan(keys.comment("*"))]
    for chunk in batched(found):
        pipe = client().pipeline(transaction=False)
        for comment_id in chunk:
            pipe.hget(keys.comment(comment_id), COMMENTS.parent_field)
        parents = pipe.execute()
        pipe = client().pipeline(transaction=False)
        for comment_id, parent in zip(chunk, parents):
            pipe.zscore(keys.post_comments(parent or 0), str(comment_id))
        held = pipe.execute()
        yield from ((cid, parent, score is not None) for cid, parent, score in zip(chunk, parents, held))


def comment_set_members(ids) -> Iterator[tuple[int, str, bool]]:
    """(post id, comment id, whether the comment hash exists and names this post) for every set member."""
    for post_id in ids:
        members = [m for m, _ in client().zscan_iter(keys.post_comments(post_id), count=1000)]
        if not members:
            continue
        pipe = client().pipeline(transaction=False)
        for member in members:
            pipe.hget(keys.comment(member), COMMENTS.parent_field)
        for member, parent in zip(members, pipe.execute()):
            yield post_id, member, parent == str(post_id)


def rebuild_indexes() -> None:
    """Rebuild every list index from the post hashes, then swap them in one transaction."""
    ids = sorted(post_ids_in_keys())
    staged: dict[str, dict[str, float]] = {}
    for chunk in batched(ids):
        for post_id, fields in zip(chunk, posts_fields(chunk, POST_INDEXED)):
            post = Post.from_fields(post_id, {k: v for k, v in fields.items() if v is not None})
            for key, member in _entries(post):
                staged.setdefault(key, {})[member] = 0 if key == keys.titles() else post.updated_at
    old = [keys.by_updated(), keys.titles(), *_scan("cms:index:status:*"), *_scan("cms:index:author:*")]
    pipe = client().pipeline(transaction=True)
    pipe.unlink(*old)
    for key, members in staged.items():
        items = list(members.items())
        for start in range(0, len(items), 1000):
            pipe.zadd(key, dict(items[start : start + 1000]))
    pipe.execute()


def drop_dangling_comments() -> None:
    """Remove set members without a comment hash of this post, and comment hashes without a post."""
    posts = set(post_ids_in_keys())
    pipe = client().pipeline(transaction=True)
    for post_id, member, ok in comment_set_members(sorted(posts)):
        if not ok:
            pipe.zrem(keys.post_comments(post_id), member)
    for comment_id, parent, held in comment_parents():
        if not (parent and parent.isdigit() and int(parent) in posts):
            pipe.unlink(keys.comment(comment_id))
        elif not held:
            at = client().hget(keys.comment(comment_id), COMMENTS.time_field) or 0
            pipe.zadd(keys.post_comments(int(parent)), {str(comment_id): float(at)})
    pipe.execute()
    for post_id in posts:
        COMMENTS.repair(post_id)
