"""The CMS's export format: posts (the current version with every revision kept, oldest first)
and comments, one file each.

Left out and rebuilt by the import: the list indexes, the embedded newest comments and the
comment count. The import writes through the seeder's bulk path, ids and times kept, and each
file is one summary event in the activity feed, not one per record.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import islice

from cms import keys, store
from cms.documents import CONTENT, STATUSES, Post, Revision
from cms.keys import AUTHOR_RE
from config.exchange import store as exchange
from config.exchange.spec import AppExchange, Entity, Record
from config.store.children import Child

_AUTHOR = re.compile(AUTHOR_RE)
TITLE_MAX, BODY_MAX, NAME_MAX, COMMENT_MAX, TEXT_MAX = 200, 20_000, 150, 200, 2_000
POST_BATCH, COMMENT_BATCH = 200, 2_000  # documents per transaction (a post with up to its whole history)


def _batches(docs: Iterable[dict], size: int) -> Iterator[tuple[list[dict], bool]]:
    """The documents in lists of ``size``, each with whether it is the last."""
    docs = iter(docs)
    batch = list(islice(docs, size))
    while batch:
        following = list(islice(docs, size))
        yield batch, not following
        batch = following


def _version(post: Post) -> dict:
    return {
        "title": post.title, "body": post.body, "author": post.author, "status": post.status,
        "last_saved_by": post.last_saved_by, "created_at": post.created_at, "updated_at": post.updated_at,
        "version": post.version, "comment": post.comment, "changed": list(post.changed),
    }  # fmt: skip


def _export_posts():
    reads = {"doc": (keys.post, "hash"), "revisions": (keys.revisions, "zset")}
    for pk, row in exchange.documents(exchange.ids(keys.post), reads, batch=100):
        history = [Revision.from_json(pk, raw).post for raw, _ in row["revisions"]]
        yield {"id": pk, **_version(Post.from_fields(pk, row["doc"])), "revisions": [_version(p) for p in history]}


def _author(record: Record, name: str) -> str | None:
    value = record.text(name, NAME_MAX, required=True)
    if value and not _AUTHOR.fullmatch(value):
        record.fail(name, "a username: letters, digits and @ . + - _ only")
    return value


def _clean_version(record: Record) -> dict:
    changed = record.texts("changed") or []
    unknown = sorted(set(changed) - set(CONTENT))
    if unknown:
        record.fail("changed", f"not content fields: {', '.join(unknown)}")
    return {
        "title": record.text("title", TITLE_MAX, required=True),
        "body": record.text("body", BODY_MAX, required=True, multiline=True),
        "author": _author(record, "author"),
        "status": record.choice("status", STATUSES),
        "last_saved_by": _author(record, "last_saved_by"),
        "created_at": record.number("created_at"),
        "updated_at": record.number("updated_at"),
        "version": record.integer("version", 1, 2**31),
        "comment": record.text("comment", COMMENT_MAX),
        "changed": changed,
    }


def _clean_post(record: Record) -> dict:
    doc = {"id": record.id(), **_clean_version(record)}
    revisions = []
    for number, item in enumerate(record.list("revisions") or [], start=1):
        if not isinstance(item, dict):
            record.fail("revisions", f"revision {number} must be an object")
            continue
        inner = Record(item, record.entity, record.where, record.seen, record.report)
        revisions.append(_clean_version(inner))
        errors = [(f"revisions[{number}].{name}", reason) for name, reason in inner.errors]
        errors += [(f"revisions[{number}].{name}", "unknown field") for name in inner.unknown()]
        record.errors.extend(errors)
    versions = [r["version"] for r in revisions] + [doc["version"]]
    if not record.errors and versions != list(range(doc["version"] - len(revisions), doc["version"] + 1)):
        record.fail("revisions", "versions must count up by one, oldest first, to just below the current version")
    elif not record.errors and doc["version"] > 1 and not revisions:  # the cap drops the oldest, never all
        record.fail("revisions", f"a post at version {doc['version']} keeps at least its last revision")
    doc["revisions"] = revisions
    return doc


def _post(pk: int, version: dict) -> Post:
    return Post(id=pk, **{**version, "changed": tuple(version["changed"])})


def _history(doc: dict) -> list[Post]:
    current = {k: v for k, v in doc.items() if k not in ("id", "revisions")}
    return [*(_post(doc["id"], v) for v in doc["revisions"]), _post(doc["id"], current)]


def _restore_posts(docs, writer) -> None:
    count, first, highest = 0, None, 0
    for batch, last in _batches(docs, POST_BATCH):
        count += len(batch)
        first = batch[0]["id"] if first is None else first
        highest = max(highest, batch[-1]["id"])
        event = writer.actor.event("created", "cms", "post", first, f"{count} imported posts") if last else None
        store.posts_write([_history(doc) for doc in batch], actor=writer.actor, event=event)
    if highest:
        writer.next_id("post", highest + 1)  # the counter is never behind an id written


def _export_comments():
    for pk, row in exchange.documents(exchange.ids(keys.comment), {"doc": (keys.comment, "hash")}):
        fields = row["doc"]
        yield {
            "id": pk, "post": int(fields.get("post") or 0), "author": fields.get("author", ""),
            "text": fields.get("text", ""), "at": float(fields.get("at") or 0),
        }  # fmt: skip


def _clean_comment(record: Record) -> dict:
    return {
        "id": record.id(),
        "post": record.ref("post", "posts"),
        "author": _author(record, "author"),
        "text": record.text("text", TEXT_MAX, required=True, multiline=True),
        "at": record.number("at"),
    }


def _restore_comments(docs, writer) -> None:
    load, first, highest = store.CommentLoad(), None, 0
    for batch, _ in _batches(docs, COMMENT_BATCH):
        first = batch[0]["id"] if first is None else first
        highest = max(highest, batch[-1]["id"])
        children = defaultdict(list)
        for doc in batch:
            children[doc["post"]].append(Child(doc["id"], {"author": doc["author"], "text": doc["text"]}, doc["at"]))
        load.load(children)
    if load.loaded:
        event = writer.actor.event("created", "cms", "comment", first, f"{load.loaded} imported comments")
        load.finish(event)
        writer.next_id("comment", highest + 1)


EXCHANGE = AppExchange(
    app="cms",
    label="The CMS",
    entities=(
        Entity("posts", _export_posts, _clean_post, _restore_posts, key=keys.post),
        Entity("comments", _export_comments, _clean_comment, _restore_comments, key=keys.comment),
    ),
    counters={"post": keys.post_ids(), "comment": keys.comment_ids()},
)
