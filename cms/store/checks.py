"""The integrity reads and repairs of the CMS (``cms/integrity.py``): in batches, never one unbounded read."""

from __future__ import annotations

from collections.abc import Iterator

from cms import conf, keys
from cms.documents import Post
from cms.store.core import COMMENTS, POST_INDEXED, TITLES, entries, score
from config.redis import client
from config.store import batched, pipelined, scan_ids


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
    return scan_ids(keys.post("*"))


def revision_bounds(ids) -> Iterator[tuple[int, int | None, int, int | None, int | None]]:
    """(post id, version, revisions kept, lowest number, highest number) for each post."""

    def queue(pipe, post_id):
        pipe.hget(keys.post(post_id), "version")
        pipe.zcard(keys.revisions(post_id))
        pipe.zrange(keys.revisions(post_id), 0, 0, withscores=True)
        pipe.zrange(keys.revisions(post_id), -1, -1, withscores=True)

    for chunk in batched(ids):
        replies = pipelined(chunk, queue)
        for n, post_id in enumerate(chunk):
            version, count, low, high = replies[4 * n : 4 * n + 4]
            version = int(version) if version is not None else None
            yield post_id, version, count, int(low[0][1]) if low else None, int(high[0][1]) if high else None


def trim_revisions() -> None:
    """Apply the cap to every post (after the setting was lowered)."""
    cap = conf.revisions_kept()
    if not cap:
        return
    for chunk in batched(post_ids_in_index()):
        pipelined(chunk, lambda pipe, post_id: pipe.zremrangebyrank(keys.revisions(post_id), 0, -(cap + 1)))


def index_entries(ids) -> Iterator[tuple[Post, list[tuple[str, str]], str | None]]:
    """For each post: the index entries it lacks, and its stored ``title_member``."""
    names = (*POST_INDEXED, "title_member")
    for chunk in batched(ids):
        held = posts_fields(chunk, names)
        posts = [_post(post_id, fields) for post_id, fields in zip(chunk, held)]
        expected = [entries(post) for post in posts]
        scores = iter(pipelined([entry for found in expected for entry in found], lambda p, e: p.zscore(*e)))
        for post, found, fields in zip(posts, expected, held):
            yield post, [entry for entry in found if next(scores) is None], fields["title_member"]


def _post(post_id: int, fields: dict[str, str | None]) -> Post:
    return Post.from_fields(post_id, {k: v for k, v in fields.items() if v is not None and k in POST_INDEXED})


def stale_index_members(batch: int = 500) -> Iterator[tuple[str, str]]:
    """(index key, member) for every index member that is not an entry of an existing post, by ZSCAN."""
    index_keys = [keys.by_updated(), keys.titles(), *_scan(keys.by_status("*")), *_scan(keys.by_author("*"))]
    yield from _stale_authors()
    for key in index_keys:
        for chunk in batched([member for member, _ in client().zscan_iter(key, count=1000)], batch):
            ids = [int(t) if (t := m.rsplit("\x00", 1)[-1]).isdigit() else 0 for m in chunk]
            for member, post_id, fields in zip(chunk, ids, posts_fields(ids, POST_INDEXED)):
                if fields["updated_at"] is None or (key, member) not in entries(_post(post_id, fields)):
                    yield key, member


def _stale_authors() -> Iterator[tuple[str, str]]:
    """(authors index, member) for every author listed with no post left in their own index (ZSCAN, ZCARD)."""
    for chunk in batched([member for member, _ in client().zscan_iter(keys.authors(), count=1000)]):
        named = [m.split("\x00", 1)[-1] for m in chunk]
        counts = iter(pipelined(filter(keys.AUTHOR_RE.match, named), lambda p, a: p.zcard(keys.by_author(a))))
        for member, author in zip(chunk, named):
            held = next(counts) if keys.AUTHOR_RE.match(author) else 0
            if not held or member != keys.author_member(author):
                yield keys.authors(), member


def embeds(ids) -> Iterator[tuple[int, dict[str, str | None], list[dict[str, str]], int]]:
    """Each post's stored embed and count, beside the newest and the count its comment set gives."""
    names = (COMMENTS.embed_field, COMMENTS.count_field)
    for chunk in batched(ids):
        newest, counts = COMMENTS.expected_embeds(chunk), COMMENTS.aggregates(chunk)
        for post_id, fields in zip(chunk, posts_fields(chunk, names)):
            yield post_id, fields, newest[post_id], counts[post_id][0]


def posts_fields(ids: list[int], names: tuple[str, ...]) -> list[dict[str, str | None]]:
    return [dict(zip(names, values)) for values in pipelined(ids, lambda p, pk: p.hmget(keys.post(pk), names))]


def comment_parents() -> Iterator[tuple[int, str | None, bool]]:
    """(comment id, its post id, whether its post's set holds it) for every comment hash, by SCAN."""
    for chunk in batched(scan_ids(keys.comment("*"))):
        parents = pipelined(chunk, lambda p, pk: p.hget(keys.comment(pk), COMMENTS.parent_field))
        held = pipelined(zip(chunk, parents), lambda p, c: p.zscore(keys.post_comments(c[1] or 0), str(c[0])))
        yield from ((cid, parent, score is not None) for cid, parent, score in zip(chunk, parents, held))


def comment_set_members(ids) -> Iterator[tuple[int, str, bool]]:
    """(post id, comment id, whether the comment hash exists and names this post) for every set member."""
    for post_id in ids:
        members = [m for m, _ in client().zscan_iter(keys.post_comments(post_id), count=1000)]
        parents = pipelined(members, lambda p, member: p.hget(keys.comment(member), COMMENTS.parent_field))
        for member, parent in zip(members, parents):
            yield post_id, member, parent == str(post_id)


def rebuild_indexes() -> None:
    """Rebuild every list index (and ``title_member``) from the post hashes, swapped in one transaction."""
    ids = sorted(post_ids_in_keys())
    staged: dict[str, dict[str, float]] = {}
    members: dict[int, str] = {}
    for chunk in batched(ids):
        for post_id, fields in zip(chunk, posts_fields(chunk, POST_INDEXED)):
            post = _post(post_id, fields)
            members[post_id] = post.title_member
            for key, member in entries(post):
                staged.setdefault(key, {})[member] = score(key, post)
    old = [keys.by_updated(), keys.titles(), keys.authors(), *_scan(keys.by_status("*")), *_scan(keys.by_author("*"))]
    pipe = client().pipeline(transaction=True)
    pipe.unlink(*old)
    for key, found in staged.items():
        items = list(found.items())
        for start in range(0, len(items), 1000):
            pipe.zadd(key, dict(items[start : start + 1000]))
    for post_id, member in members.items():
        pipe.hset(keys.post(post_id), "title_member", member)
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


def post_titles() -> dict[str, str]:
    """Every post's title by id: SCAN for the hashes, HGET 500 a round trip."""
    titles: dict[str, str] = {}
    for chunk in batched(post_ids_in_keys()):
        found = pipelined(chunk, lambda p, post_id: p.hget(keys.post(post_id), "title"))
        titles.update({str(i): title for i, title in zip(chunk, found) if title is not None})
    return titles


def title_gram_drift() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(missing, extra) trigrams per post id: the title index against the titles (SCAN/SSCAN, HGET)."""
    return TITLES.drift(post_titles())


def rebuild_title_grams() -> None:
    """Rebuild the trigram index from the titles: drop every piece set and re-add, in one transaction."""
    titles = post_titles()
    pipe = client().pipeline(transaction=True)
    TITLES.queue_rebuild(pipe, titles.items(), TITLES.index_keys())
    pipe.execute()
