"""The key browser's reads of one key's page and of a registered pattern's index page, with the
rules of ``store.py``: read-only, every collection read in bounded pages, bytes kept as bytes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from redis.exceptions import ResponseError

from config.keybrowser.display import is_hidden
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
from config.keybrowser.store.nodes import SCAN_CURSOR_END, placed
from config.keyspace import KeyPattern, keyspace
from config.redis import raw_client
from config.store.scripts import lua, queue_script, run_script

# What one stream entry shows: at most ENTRY_FIELDS of its fields, and of their values at most
# ENTRY_SHOWN bytes in all on a stream's page (VALUE_SHOWN a value on an entry's own page), cut by
# the script that reads them so no more leaves Redis; names are cut to NAME_SHOWN. A stream's page
# stops once its entries hold READ_BUDGET bytes, so a page of huge entries reads few of them.
ENTRY_FIELDS = 10
ENTRY_SHOWN = 4096
VALUE_SHOWN = 4096
NAME_SHOWN = 300
READ_BUDGET = 1024 * 1024
DOWNLOAD_CHUNK = 64 * 1024  # bytes of a value one command of a download reads

# The key page's scripts, read-only and sent whole (EVAL); the stream reads share ``put_entry``.
_STREAM_PAGE = lua(__file__, "entry", "stream_page")
_ENTRY_PAGE = lua(__file__, "entry", "entry_page")
_HASH_PAGE = lua(__file__, "hash_page")
_SLICE = lua(__file__, "slice")
_CUTS = [NAME_SHOWN, ENTRY_FIELDS, VALUE_SHOWN, ENTRY_SHOWN]  # the stream page's cuts (its ARGV[4:])

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
    """A position inside a key of ``kind``: a stream id, or digits inside Redis's range (a SCAN
    cursor below 2^64, an offset below 2^63); ValueError otherwise, so Redis never refuses it."""
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
        queue_script(pipe, _HASH_PAGE, [key], [int(cursor), PAGE, NAME_SHOWN, VALUE_SHOWN], whole=True)
    elif kind == "set":
        pipe.sscan(key, int(cursor), count=PAGE)
    elif kind == "zset":
        pipe.zrange(key, int(cursor), int(cursor) + PAGE - 1, withscores=True)
    elif kind == "list":
        pipe.lrange(key, int(cursor), int(cursor) + PAGE - 1)
    elif kind == "stream":
        start = "+" if cursor == "+" else f"({cursor}"
        queue_script(pipe, _STREAM_PAGE, [key], [start, PAGE, READ_BUDGET, *_CUTS], whole=True)
    elif kind == "string":
        pipe.getrange(key, int(cursor), int(cursor) + STRING_CHUNK - 1)


def _content(meta: KeyMeta, cursor: str, reply, related: dict[bytes, bool]) -> KeyContent:
    content = KeyContent(meta, cursor=cursor, related=related)
    kind = meta.type
    if kind in {"hash", "set"}:
        if kind == "hash":  # the script's flat reply: (name, its length, value, its length) per field
            next_cursor, flat = int(reply[0]), reply[1:]
            found = [tuple(flat[i : i + 4]) for i in range(0, len(flat), 4)]
        else:
            next_cursor, found = reply
        content.next_cursor = "" if int(next_cursor) == 0 else str(next_cursor)
        whole = cursor == "0" and not content.next_cursor
        # One page holding the whole key reads best sorted; a page of many keeps SCAN's order.
        content.rows = (sorted(found) if whole else found) if kind == "hash" else sorted(found)
    elif kind == "stream":
        more, content.rows = reply[0], entries(reply[1:])
        content.next_cursor = content.rows[-1].id.decode() if more and content.rows else ""
    elif kind in {"zset", "list", "string"}:  # paged by offset: a string's chunk, or its rows
        if kind == "string":
            content.value = reply
        else:
            content.rows = list(reply)
        content.offset, end = int(cursor), int(cursor) + len(reply)
        content.next_cursor = str(end) if meta.length is not None and end < meta.length else ""
    return content


@dataclass
class Entry:
    """One stream entry as a page shows it: some of its fields, cut, and what they were cut from."""

    id: bytes
    field_count: int
    size: int  # bytes of its names and values
    first: int  # index of the first field shown
    fields: list[tuple[bytes, int, bytes, int]]  # name (cut), its length, value (cut), its length

    @property
    def hidden(self) -> int:
        """Fields of the entry after those shown."""
        return self.field_count - self.first - len(self.fields)


def entries(flat: list) -> list[Entry]:
    """The entries a stream script put (``put_entry``), in order."""
    out, at = [], 0
    while at < len(flat):
        entry_id, count, size, first, shown = flat[at : at + 5]
        at += 5
        fields = [tuple(flat[at + 4 * i : at + 4 * i + 4]) for i in range(shown)]
        at += 4 * shown
        out.append(Entry(entry_id, int(count), int(size), int(first), fields))
    return out


def read_entry(key: bytes, entry_id: str, cursor: str = "") -> KeyContent:
    """One stream entry's page of fields (``PAGE`` from ``cursor``, a field index), with the key's
    metadata: one round trip. ValueError for an id or a position that is not one."""
    if is_hidden(key):
        raise HiddenKey(key)
    entry_id = parse_cursor("stream", entry_id)
    position = int(parse_cursor("list", cursor))
    if entry_id == "+":
        raise ValueError("an entry id is needed")
    pipe = raw_client().pipeline(transaction=False)
    _queue_describe(pipe, [key])
    queue_script(pipe, _ENTRY_PAGE, [key], [entry_id, position, PAGE, NAME_SHOWN, VALUE_SHOWN], whole=True)
    described, reply = pipe.execute(raise_on_error=False)
    meta = placed([_meta(key, described)])[0]
    content = KeyContent(meta, cursor=str(position), offset=position)
    if meta.type != "stream" or isinstance(reply, ResponseError) or not reply:
        return content
    content.rows = entries(reply)
    end = position + len(content.rows[0].fields)
    content.next_cursor = str(end) if end < content.rows[0].field_count else ""
    return content


def download(key: bytes, field: bytes | None = None, entry_id: str = "", index: str = "") -> Iterator[bytes] | None:
    """The whole value of a string, a hash ``field`` or a stream entry's field (its ``index``), a
    ``DOWNLOAD_CHUNK`` a command: its bytes, or None when there is no such value. The first chunk
    is read here, so that a missing value is known before anything is sent."""
    if is_hidden(key):
        raise HiddenKey(key)
    client = raw_client()
    if entry_id:
        args = ["entry", parse_cursor("stream", entry_id), int(parse_cursor("list", index))]
    elif field is not None:
        args = ["hash", field, 0]
    else:
        kind = client.type(key)
        if kind != b"string":
            return None
        return _string_chunks(client, key)

    def read(offset: int) -> tuple[int, bytes]:
        size, part = run_script(_SLICE, [key], [*args, offset, DOWNLOAD_CHUNK], on=client, whole=True)
        return int(size), part

    size, first = read(0)
    if size < 0:
        return None

    def chunks() -> Iterator[bytes]:
        yield first
        offset = len(first)
        while offset < size:
            _, part = read(offset)
            if not part:
                return
            yield part
            offset += len(part)

    return chunks()


def _string_chunks(client, key: bytes) -> Iterator[bytes]:
    """A string's bytes by GETRANGE, a chunk a command, to where it ends."""
    offset = 0
    while True:
        part = client.getrange(key, offset, offset + DOWNLOAD_CHUNK - 1)
        if part:
            yield part
        if len(part) < DOWNLOAD_CHUNK:
            return
        offset += len(part)


def read_key(key: bytes, cursor: str = "", expected: str = "", related: tuple[bytes, ...] = ()) -> KeyContent:
    """A key's metadata, whether its ``related`` keys exist, and one page of what it holds: one
    round trip when the key is of its registered type (``expected``), else a second once TYPE is
    known. ``cursor`` is checked for the key's actual type (ValueError when it does not fit)."""
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
    """Keys of ``pattern`` through the app's index of ids (ZRANGE by offset, or SSCAN): two round trips."""
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
