"""Bytes from Redis made safe to show, and links between keys and screens.

Keys and values come from the raw client as bytes. Printable UTF-8 is shown as is; anything else
with its odd bytes and control characters escaped (``\\xff``, ``\\n``), and flagged, so a binary
value or a name with a newline never breaks the page nor hides what it holds.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import quote_from_bytes, unquote_to_bytes

from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils.translation import get_language

from config.keybrowser.owners import field_id_pattern, member_id, owner, patterns_by_shape
from config.keyspace import KeyPattern, keyspace

# Control characters and the Unicode line/paragraph separators.
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_NAME_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_PRINTABLE_ASCII = re.compile(rb"[\x20-\x7e]*")  # bytes shown as they are, name or value
NAME_SHOWN = 300  # bytes of a key name shown in a list; the key page shows it whole
# Bytes of a key name that a link may carry: percent-encoded, about 3 KB of URL, under the 4 KB request
# line of common servers. A longer name is listed, cut, with no link (no server would accept it).
LINK_LIMIT = 1000
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
DASH = "—"  # a length Redis does not give


def _escape_char(match: re.Match) -> str:
    char = match.group()
    if char in _ESCAPES:
        return _ESCAPES[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


# The values a page builds by the hundred (a name, a cell, a link, a key's metadata) are plain
# slotted dataclasses, never changed once built: a frozen one pays a guarded setattr per field.
@dataclass(slots=True)
class Shown:
    """Bytes as text to show: ``escaped`` when some bytes could not be shown as they are."""

    text: str
    escaped: bool = False
    truncated: bool = False
    size: int = 0  # bytes of the whole value, when it was cut

    def __str__(self) -> str:
        return self.text

    @property
    def shown_bytes(self) -> int:
        return len(self.text.encode())

    @property
    def size_text(self) -> str:
        return f"{self.size:,}"


def show(value: bytes | str | None, limit: int = 0, name: bool = False, whole: int = 0) -> Shown:
    """``value`` as safe text; a name also escapes newlines and tabs, so it shows on one line.
    ``whole``: the size of the value ``value`` was already cut from (by the script that read it)."""
    if value is None:
        return Shown("")
    if (
        value.__class__ is bytes
        and (not limit or len(value) <= limit)
        and whole <= len(value)
        and _PRINTABLE_ASCII.fullmatch(value)
    ):
        return Shown(value.decode("ascii"))  # nearly every name and most values: nothing to cut or escape
    raw = value.encode() if isinstance(value, str) else bytes(value)
    size = max(len(raw), whole)
    truncated = (bool(limit) and len(raw) > limit) or size > len(raw)
    if limit and len(raw) > limit:
        raw = raw[:limit]
    try:
        text, escaped = raw.decode("utf-8"), False
    except UnicodeDecodeError as exc:
        # A cut may split a character: a truncated tail is not "binary".
        if truncated and exc.start >= len(raw) - 3 and exc.reason == "unexpected end of data":
            text, escaped = raw[: exc.start].decode("utf-8"), False
        else:
            text, escaped = raw.decode("utf-8", "backslashreplace"), True
    pattern = _NAME_UNPRINTABLE if name else _UNPRINTABLE
    if pattern.search(text):
        text, escaped = pattern.sub(_escape_char, text), True
    return Shown(text, escaped, truncated, size if truncated else 0)


_EMPTY_JSON = (b"[]", b"{}")


def pretty_json(value: bytes) -> str:
    """Indented JSON when ``value`` is a JSON object or array, else ""."""
    stripped = value.strip()
    if stripped[:1] not in (b"{", b"["):
        return ""
    if stripped in _EMPTY_JSON:  # an embed with nothing in it yet: indenting it changes nothing
        return stripped.decode()
    try:
        return json.dumps(json.loads(stripped), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return ""


# Bytes that ``quote_from_bytes(..., safe="")`` leaves as they are, and the ``:`` and hash tag braces
# it encodes: the bytes of nearly every key name.
_UNQUOTED = re.compile(rb"[A-Za-z0-9_.~:{}-]*")


def key_param(key: bytes | str) -> str:
    """The key, percent-encoded byte for byte, for ``?key=``: binary names survive the round trip."""
    raw = key.encode() if isinstance(key, str) else key
    if _UNQUOTED.fullmatch(raw):
        return _plain_param(raw.decode("ascii"))
    return quote_from_bytes(raw, safe="")


def _plain_param(text: str) -> str:
    """``key_param`` of a name ``_UNQUOTED`` matches, as text."""
    return text.replace(":", "%3A").replace("{", "%7B").replace("}", "%7D")


def key_from_query(query_string: str, name: str = "key") -> bytes | None:
    """The raw bytes of ``?key=``, read from the raw query: Django's UTF-8 decoding mangles binary names."""
    for part in query_string.split("&"):
        field, sep, value = part.partition("=")
        if sep and unquote_to_bytes(field.replace("+", " ")) == name.encode():
            return unquote_to_bytes(value.replace("+", " "))
    return None


def key_url(key: bytes | str, base: str = "") -> str:
    """The key's own page; "" past LINK_LIMIT. ``base``, the browser's path, saves a ``reverse()`` a link."""
    raw = key.encode() if isinstance(key, str) else key
    if len(raw) > LINK_LIMIT:
        return ""
    return f"{base or reverse('keybrowser:browse')}?key={key_param(raw)}"


_hidden: tuple[object, str | None, tuple[bytes, ...]] = (None, None, ())


def hidden_prefixes() -> tuple[bytes, ...]:
    """Django's cache and session keys: never listed, never read (sessions are secrets). Worked out
    once per CACHES setting and registry ``django`` prefix (a test may change either)."""
    global _hidden
    caches, registered = settings.CACHES, keyspace.prefixes.get("django")
    if _hidden[0] is not caches or _hidden[1] != registered:
        prefixes = {
            f"{options.get('KEY_PREFIX', '')}:" for options in caches.values() if "redis" in options["BACKEND"].lower()
        }
        if registered is not None:
            prefixes.add(registered)
        _hidden = (caches, registered, tuple(sorted(p.encode() for p in prefixes)))
    return _hidden[2]


def is_hidden(key: bytes | str) -> bool:
    raw = key.encode() if isinstance(key, str) else key
    return raw.startswith(hidden_prefixes())


@dataclass(slots=True)
class MemberLink:
    key_url: str = ""
    screen_url: str = ""


NO_LINK = MemberLink()


def member_link(member: bytes, ids_of: KeyPattern | None, base: str = "", index: dict | None = None) -> MemberLink:
    """Links for a member that is an id of ``ids_of`` or the name of a registered key."""
    try:
        text = member.decode()
    except UnicodeDecodeError:
        return NO_LINK
    if ids_of is not None and (member_ref := member_id(member)):
        key = ids_of.key_of(member_ref)
        return MemberLink(key_url(key, base), ids_of.screen_url(key))
    if ":" in text and not is_hidden(text):
        pattern = owner(text, index)
        if pattern is not None:
            return MemberLink(key_url(text, base), pattern.screen_url(text))
    return NO_LINK


# --- rows for templates -------------------------------------------------------------


def duration(ms: int | None) -> str:
    """A TTL as people read it: 2d 3h, 4m 05s, 950 ms."""
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms} ms"
    seconds = ms // 1000
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {seconds:02d}s"
    return f"{seconds}s"


_sizes: dict[tuple[int, str | None], str] = {}


def size(count: int, language: str | None = None) -> str:
    """``filesizeformat`` of a byte count, kept per count and language (the active one, when the caller
    has it): its translation and number formatting cost more than the rest of a row."""
    key = (count, language or get_language())
    shown = _sizes.get(key)
    if shown is None:
        if len(_sizes) > 4096:
            _sizes.clear()
        shown = _sizes[key] = filesizeformat(count)
    return shown


def key_rows(metas) -> list[dict]:
    """A list's rows: each key's name made safe, its link, its owner and its metadata. Flat dicts: the
    template language finds a key at its first try, where an attribute costs a failed lookup first.
    A short name of letters, digits, ``:`` and braces (nearly every key) is its own text."""
    base, rows, index, language = reverse("keybrowser:browse"), [], patterns_by_shape(), get_language()
    link = f"{base}?key="
    for meta in metas:
        raw = meta.key
        if len(raw) <= NAME_SHOWN and _UNQUOTED.fullmatch(raw):
            text = raw.decode("ascii")
            name, url, pattern = Shown(text), link + _plain_param(text), owner(text, index)
        else:  # owner() of the bytes: a name that is not UTF-8 has none
            text, name, url = (
                raw.decode("utf-8", "backslashreplace"),
                show(raw, NAME_SHOWN, name=True),
                key_url(raw, base),
            )
            pattern = owner(raw, index)
        screen = pattern.screen_url(text) if pattern and len(raw) <= LINK_LIMIT else ""
        memory = "" if meta.memory is None else size(meta.memory, language)
        rows.append({
            "meta": meta, "name": name, "url": url, "screen_url": screen, "memory": memory,
            "app": pattern.app if pattern else "", "pattern": pattern.pattern if pattern else "",
            "modeling": pattern.modeling if pattern else "",
            "type": meta.type, "length": DASH if meta.length is None else meta.length, "encoding": meta.encoding,
            "ttl": duration(meta.ttl_ms), "no_ttl": "none" if meta.exists else "missing",
            "node": meta.node, "slot": meta.slot,
        })  # fmt: skip
    return rows


VALUE_SHOWN = 4096  # bytes of one field, member or entry value shown in a table cell


@dataclass(slots=True)
class Cell:
    """One value of a key, made safe, pretty-printed when it is JSON, linked when it names a key."""

    shown: Shown
    json: str
    link: MemberLink
    size: int
    download: str = ""  # where the whole value downloads, when it is cut


def cell(
    value: bytes,
    ids_of: KeyPattern | None = None,
    limit: int = VALUE_SHOWN,
    base: str = "",
    index: dict | None = None,
    whole: int = 0,
    download: str = "",
) -> Cell:
    """One value to show (``whole`` as for ``show``); ``download``, the whole value's link, kept when cut."""
    value = bytes(value)
    shown = show(value, limit=limit, whole=whole)
    if shown.truncated:
        return Cell(shown, "", member_link(value, ids_of, base, index), shown.size, download)
    return Cell(shown, pretty_json(value), member_link(value, ids_of, base, index), len(value))


def download_url(key: bytes, **params: bytes | str) -> str:
    """The download of ``key``'s whole value (``field``; ``entry`` and ``index``); "" past LINK_LIMIT."""
    parts = [f"key={key_param(key)}"] + [f"{name}={key_param(value)}" for name, value in params.items()]
    if len(key) + sum(len(v) for v in params.values()) > LINK_LIMIT:
        return ""
    return f"{reverse('keybrowser:download')}?{'&'.join(parts)}"


@dataclass(slots=True)
class EntryView:
    """One stream entry on a page: the fields shown, how many follow them, its size and its own page."""

    id: str
    fields: list  # (name Cell, value Cell)
    hidden: int
    size: int
    url: str

    @property
    def size_text(self) -> str:
        return f"{self.size:,}"


def score(value: float) -> str:
    return f"{value:.17g}"


def hexdump(value: bytes, start: int = 0) -> str:
    """16 bytes a line: offset, hex, and the printable ASCII beside it, as ``xxd`` shows them."""
    lines = []
    for i in range(0, len(value), 16):
        row = value[i : i + 16]
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append(f"{start + i:08x}  {row.hex(' '):<47}  {text}")
    return "\n".join(lines)


def content_view(content, ids_of: KeyPattern | None, key_owner: KeyPattern | None = None, as_hex=False) -> dict:
    """What a key page shows of one page of ``content`` (a ``keystore.KeyContent``), by type; a string
    can be shown ``as_hex``."""
    kind, offset = content.meta.type, content.offset
    links = {"base": reverse("keybrowser:browse"), "index": patterns_by_shape()}
    key = content.meta.key
    if kind == "hash":
        return {
            "fields": [
                _field(field, links, field_id_pattern(field[0], key_owner), _field_download(key, field))
                for field in content.rows
            ]
        }
    if kind == "set":
        return {"members": [cell(member, ids_of, **links) for member in content.rows]}
    if kind == "zset":
        return {"scored": [(offset + i, cell(m, ids_of, **links), score(s)) for i, (m, s) in enumerate(content.rows)]}
    if kind == "list":
        return {"items": [(offset + i, cell(item, ids_of, **links)) for i, item in enumerate(content.rows)]}
    if kind == "stream":
        return {"entries": [_entry_view(key, entry, links) for entry in content.rows]}
    if kind == "string":
        whole = offset == 0 and content.meta.length == len(content.value)
        shown = show(content.value)
        view = {"binary": shown.escaped, "as_hex": as_hex}
        if as_hex:
            return {**view, "hex": hexdump(content.value, offset)}
        cell_ = Cell(shown, pretty_json(content.value) if whole else "", NO_LINK, len(content.value))
        return {**view, "string": cell_, "download": download_url(key)}
    return {}


def _field(field: tuple, links: dict, ids_of: KeyPattern | None, download: str) -> tuple[Cell, Cell]:
    """A hash field's or a stream entry's field's (name, value, their whole sizes) name and value cells."""
    name, name_size, value, value_size = field
    return cell(name, limit=NAME_SHOWN, whole=name_size, **links), cell(
        value, ids_of, whole=value_size, download=download, **links
    )


def _field_download(key: bytes, field: tuple) -> str:
    """The download of a hash field's value the page cuts (none when its name was cut too)."""
    name, name_size, _, value_size = field
    return download_url(key, field=bytes(name)) if value_size > VALUE_SHOWN and name_size == len(name) else ""


def _entry_view(key: bytes, entry, links: dict) -> EntryView:
    """One entry (``keystore.Entry``) as a page shows it: each cut value with its download."""
    entry_id = entry.id.decode()
    fields = [
        _field(field, links, None, download_url(key, entry=entry_id, index=str(i)) if field[3] > len(field[2]) else "")
        for i, field in enumerate(entry.fields, start=entry.first)
    ]
    url = key_url(key)
    return EntryView(entry_id, fields, entry.hidden, entry.size, f"{url}&entry={entry_id}" if url else "")
