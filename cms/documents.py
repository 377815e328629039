"""The CMS documents: a post (its current version), a revision, a list row.

A post's own fields are what a revision snapshots; the comment embed and count the post hash
also holds are derived and never enter a snapshot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import NamedTuple

SCHEMA = 1
STATUSES = ("draft", "published")
CONTENT = ("title", "body", "author", "status")  # what an editor changes; a save changes one or it is no save
SUMMARY = ("title", "author", "status", "updated_at", "version", "num_comments")  # what the list reads
TITLE_CHARS = 200  # of the casefolded title kept in the title index


def title_member(post_id: int, title: str) -> str:
    """A post's member of the title index: its casefolded title, NUL, its id."""
    return f"{title.casefold()[:TITLE_CHARS]}\x00{post_id}"


def _when(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


OWN_FIELDS = (
    "schema", "title", "body", "author", "status", "last_saved_by", "created_at", "updated_at",
    "version", "comment", "changed", "title_member",
)  # fmt: skip  # a post's own hash fields: what a revision snapshots (the comment embed is not)


@dataclass(frozen=True)
class Post:
    id: int
    title: str
    body: str
    author: str
    status: str
    last_saved_by: str
    created_at: float
    updated_at: float
    version: int = 1
    comment: str = ""  # the comment given with the save that made this version
    changed: tuple[str, ...] = ()  # content fields this version changed from the one before
    schema: int = SCHEMA

    def to_fields(self) -> dict[str, str]:
        """The post's own hash fields (also the snapshot of a revision). ``title_member`` is kept beside the
        title so that a write can take the old entry out of the title index without casefolding in Redis."""
        times = {"created_at": repr(self.created_at), "updated_at": repr(self.updated_at)}
        fields = {**times, "changed": ",".join(self.changed)}
        return {name: fields[name] if name in fields else str(getattr(self, name)) for name in OWN_FIELDS}

    @classmethod
    def from_fields(cls, post_id: int, fields: dict[str, str]) -> Post:
        text = {name: fields.get(name, "") for name in ("title", "body", "author", "last_saved_by", "comment")}
        return cls(
            post_id,
            **text,
            status=fields.get("status", "draft"),
            created_at=float(fields.get("created_at") or 0),
            updated_at=float(fields.get("updated_at") or 0),
            version=int(fields.get("version") or 1),
            changed=tuple(filter(None, (fields.get("changed") or "").split(","))),
            schema=int(fields.get("schema") or SCHEMA),
        )

    @property
    def title_member(self) -> str:
        return title_member(self.id, self.title)

    def content(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in CONTENT}

    def differs_from(self, content: dict[str, str]) -> tuple[str, ...]:
        """The content fields whose value in ``content`` is not this post's."""
        return tuple(name for name in CONTENT if content.get(name, getattr(self, name)) != getattr(self, name))

    def saved(self, content: dict[str, str], by: str, comment: str, at: float) -> Post | None:
        """The next version with ``content`` applied, or None when nothing would change."""
        changed = self.differs_from(content)
        if not changed:
            return None
        values = {**{name: content[name] for name in changed}, "last_saved_by": by, "updated_at": at}
        return replace(self, **values, version=self.version + 1, comment=comment, changed=changed, schema=SCHEMA)

    @property
    def created(self) -> datetime:
        return _when(self.created_at)

    @property
    def updated(self) -> datetime:
        return _when(self.updated_at)


@dataclass(frozen=True)
class Revision:
    """An earlier version of a post: its number is the version it was, its snapshot the post as it was
    then; when, who, the comment and the changed fields are those of the save that made it."""

    post: Post

    @property
    def number(self) -> int:
        return self.post.version

    @property
    def at(self) -> datetime:
        return self.post.updated

    @property
    def by(self) -> str:
        return self.post.last_saved_by

    @property
    def comment(self) -> str:
        return self.post.comment

    @property
    def changed(self) -> tuple[str, ...]:
        return self.post.changed

    def to_json(self) -> str:
        """The snapshot as stored: compact JSON (never compared as text: the scripts' cjson has no order)."""
        return json.dumps(self.post.to_fields(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, post_id: int, raw: str) -> Revision:
        return cls(Post.from_fields(post_id, json.loads(raw)))


class HistoryRow(NamedTuple):
    """What the history page shows of one revision (no body): a tuple, the cheapest record to make."""

    number: int
    updated_at: float
    by: str
    comment: str
    changed: tuple[str, ...]
    title: str
    author: str
    status: str


class PostSummary(NamedTuple):
    """One row of the post list: only the fields the list shows (a tuple, as ``HistoryRow``)."""

    id: int
    title: str
    author: str
    status: str
    updated_at: float
    version: int
    num_comments: int

    @property
    def updated(self) -> datetime:
        return _when(self.updated_at)


@dataclass(frozen=True)
class Comment:
    id: int
    author: str
    text: str
    at: float

    @classmethod
    def from_row(cls, row: dict[str, str | None]) -> Comment:
        return cls(int(row["id"]), row.get("author") or "", row.get("text") or "", float(row.get("at") or 0))

    @property
    def when(self) -> datetime:
        return _when(self.at)


@dataclass(frozen=True)
class Between:
    """What other editors saved since the version an editor loaded (an edit conflict)."""

    base: int
    current: Post
    saves: list[Revision] = field(default_factory=list)  # newest first, the current version included
    base_snapshot: Post | None = None  # None when the cap trimmed it

    @property
    def changed(self) -> tuple[str, ...]:
        """The content fields that now differ from what the editor loaded."""
        if self.base_snapshot is None:
            return tuple(name for name in CONTENT if any(name in save.changed for save in self.saves))
        return self.current.differs_from(self.base_snapshot.content())
