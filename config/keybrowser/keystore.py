"""The key browser's reads of one key's page and of a registered pattern's index page.

Split from ``store.py`` (the scans: lists, the namespace tree, orphans), with the
same rules: read-only, every collection read in bounded pages, the raw client
so binary names and values stay bytes. On a cluster the client sends each read
to the node that holds its key, and the page names that node and the slot.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from redis.exceptions import ResponseError

from config.keybrowser.display import is_hidden
from config.keybrowser.nodes import SCAN_CURSOR_END, placed
from config.keybrowser.owners import member_id
from config.keybrowser.store import (
    _STREAM_ID,
    OFFSET_END,
    PAGE,
    STRING_CHUNK,
    HiddenKey,
    KeyMeta,
    _meta,
    _queue_describe,
    describe,
)
from config.keyspace import KeyPattern, keyspace
from config.redis import raw_client

# --- one key ----------------------------------------------------------------------


@dataclass
class KeyContent:
    meta: KeyMeta
    rows: list = field(default_factory=list)  # per type: (field, value), member, (member, score), item, (id, fields)
    value: bytes = b""  # a string's chunk
    cursor: str = "0"  # where this page starts
    next_cursor: str = ""  # where the next page starts, "" at the end
    offset: int = 0  # for offset-paged types: index of the first row
    related: dict[bytes, bool] = field(default_factory=dict)  # keys of the same document -> whether they exist


def parse_cursor(kind: str, text: str) -> str:
    """A position inside a key of ``kind``, checked: a stream id, or ASCII digits inside
    Redis's range (a SCAN cursor of a set or hash below 2^64, an offset below 2^63);
    ValueError otherwise, so Redis never answers an error for it."""
    text = text or ("+" if kind == "stream" else "0")
    if kind == "stream":
        if text == "+" or (_STREAM_ID.match(text) and all(int(p) < SCAN_CURSOR_END for p in text.split("-"))):
            return text
    elif text.isascii() and text.isdigit() and len(text) <= 20:
        end = SCAN_CURSOR_END if kind in {"hash", "set"} else OFFSET_END
        if int(text) < end:
            return str(int(text))
    raise ValueError(f"not a position in a {kind}: {text[:40]!r}")


def _queue_read(pipe, key: bytes, kind: str, cursor: str) -> None:
    if kind == "hash":
        pipe.hscan(key, int(cursor), count=PAGE)
    elif kind == "set":
        pipe.sscan(key, int(cursor), count=PAGE)
    elif kind == "zset":
        pipe.zrange(key, int(cursor), int(cursor) + PAGE - 1, withscores=True)
    elif kind == "list":
        pipe.lrange(key, int(cursor), int(cursor) + PAGE - 1)
    elif kind == "stream":
        pipe.xrevrange(key, max="+" if cursor == "+" else f"({cursor}", count=PAGE)
    elif kind == "string":
        pipe.getrange(key, int(cursor), int(cursor) + STRING_CHUNK - 1)


def _content(meta: KeyMeta, cursor: str, reply, related: dict[bytes, bool]) -> KeyContent:
    content = KeyContent(meta, cursor=cursor, related=related)
    kind = meta.type
    if kind in {"hash", "set"}:
        next_cursor, found = reply
        content.next_cursor = "" if int(next_cursor) == 0 else str(next_cursor)
        whole = cursor == "0" and not content.next_cursor
        # One page holding the whole key reads best sorted; a page of many keeps SCAN's order.
        content.rows = (sorted(found.items()) if whole else list(found.items())) if kind == "hash" else sorted(found)
    elif kind in {"zset", "list"}:
        content.rows, content.offset = list(reply), int(cursor)
        end = int(cursor) + len(reply)
        content.next_cursor = str(end) if meta.length is not None and end < meta.length else ""
    elif kind == "stream":
        content.rows = [(entry_id, list(fields.items())) for entry_id, fields in reply]
        content.next_cursor = content.rows[-1][0].decode() if len(content.rows) == PAGE else ""
    elif kind == "string":
        content.value, content.offset = reply, int(cursor)
        end = int(cursor) + len(reply)
        content.next_cursor = str(end) if meta.length is not None and end < meta.length else ""
    return content


def read_key(key: bytes, cursor: str = "", expected: str = "", related: tuple[bytes, ...] = ()) -> KeyContent:
    """A key's metadata, whether its ``related`` keys exist, and one page of what it holds.

    One round trip when the key is of its registered type (``expected``): the
    page read rides in the same pipeline as the metadata. Otherwise a second
    round trip reads the page once TYPE is known. ``cursor`` is checked for
    the key's actual type (ValueError when it does not fit).
    """
    if is_hidden(key):
        raise HiddenKey(key)
    related = tuple(k for k in related if not is_hidden(k))
    pipe = raw_client().pipeline(transaction=False)
    _queue_describe(pipe, [key])
    for other in related:
        pipe.exists(other)
    guess = ""
    if expected:
        try:
            guess = expected
            _queue_read(pipe, key, expected, parse_cursor(expected, cursor))
        except ValueError:
            guess = ""
    replies = pipe.execute(raise_on_error=False)
    described = replies[0]
    meta = placed([_meta(key, described)])[0]
    found = {other: bool(n) for other, n in zip(related, replies[1 : 1 + len(related)])}
    page = replies[1 + len(related) :]
    if not meta.exists:
        return KeyContent(meta, related=found)
    position = parse_cursor(meta.type, cursor)
    if guess == meta.type and not isinstance(page[0], ResponseError):
        return _content(meta, position, page[0], found)
    pipe = raw_client().pipeline(transaction=False)
    _queue_read(pipe, key, meta.type, position)
    return _content(meta, position, pipe.execute()[0], found)


# --- keys of one registered pattern -------------------------------------------------


@dataclass
class IndexPage:
    keys: list[KeyMeta]
    total: int
    next_cursor: str  # "" at the end


def pattern_index_page(pattern: KeyPattern, cursor: str) -> IndexPage:
    """Keys of ``pattern`` through the app's own index of ids (ZRANGE by offset, or
    SSCAN): two round trips, the index page, then the keys' metadata."""
    index_owner = keyspace.match(pattern.index)
    kind = index_owner.type if index_owner else "zset"
    position = int(parse_cursor(kind, cursor))
    pipe = raw_client().pipeline(transaction=False)
    if kind == "set":
        pipe.scard(pattern.index)
        pipe.sscan(pattern.index, position, count=PAGE)
    else:
        pipe.zcard(pattern.index)
        pipe.zrange(pattern.index, position, position + PAGE - 1)
    total, page = pipe.execute()
    if kind == "set":
        next_cursor, ids = page
        next_cursor = "" if int(next_cursor) == 0 else str(next_cursor)
    else:
        ids = page
        next_cursor = str(position + len(ids)) if position + len(ids) < total else ""
    refs = [member_id(member) for member in ids]
    keys = [pattern.key_of(ref).encode() for ref in refs if ref]
    metas, _ = describe(keys)
    return IndexPage(metas, total, next_cursor)
