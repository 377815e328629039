"""Which registered pattern owns a key, and what a key's members and fields name.

Asked of every key listed and every value shown, so the registry is indexed once per registry:
by shape for the owner of a name, by app for its documents, by owner for a key's relations.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable

from config.keyspace import KeyPattern, keyspace

_owner_index: tuple[tuple[KeyPattern, ...], dict] = ((), {})


def _segment_regex(glob: str) -> str:
    """One segment's glob as fnmatchcase reads it, without its end anchor (the key's regex has one)."""
    translated = fnmatch.translate(glob)
    return translated[: -len("\\Z")] if translated.endswith("\\Z") else translated


def patterns_by_shape() -> dict[tuple[int, str | None], tuple[Callable, dict[int, tuple[int, KeyPattern]]]]:
    """The registry indexed by (segments, first segment; None when it is a glob), rebuilt when the
    registry changes. Each shape's patterns are one regex, the alternation of their whole-key regexes,
    fewest wildcards first: a key is matched once, and the first alternative that matches is the most
    specific. With it, by its alternative's group, each pattern's (wildcards, pattern)."""
    global _owner_index
    # The patterns themselves: a copy of the list and a comparison that finds each the same object,
    # where their names cost a loop in Python on every call.
    signature = tuple(keyspace.patterns)
    if _owner_index[0] != signature:
        shapes: dict[tuple[int, str | None], list[KeyPattern]] = {}
        for pattern in keyspace.patterns:
            first = pattern.segments[0]
            shape = (len(pattern.segments), None if any(c in first for c in "*?[") else first)
            shapes.setdefault(shape, []).append(pattern)
        index = {}
        for shape, patterns in shapes.items():
            patterns.sort(key=lambda p: p.wildcards)  # stable: registry order among equals
            alternatives, entries, group = [], {}, 1
            for pattern in patterns:
                regex = ":".join(_segment_regex(segment) for segment in pattern.segments)
                alternatives.append(f"({regex})")
                entries[group] = (pattern.wildcards, pattern)
                group += 1 + re.compile(regex).groups  # a glob's own groups come after its alternative's
            index[shape] = (re.compile("|".join(alternatives)).fullmatch, entries)
        _owner_index = (signature, index)
    return _owner_index[1]


def owner(key: bytes | str, index: dict | None = None) -> KeyPattern | None:
    """The registered pattern of ``key`` (the most specific, as ``keyspace.match``; none for a name
    that is not UTF-8). ``index`` (``patterns_by_shape()``) spares a page of keys checking it again."""
    try:
        text = key.decode() if isinstance(key, bytes) else key
    except UnicodeDecodeError:
        return None
    index = index if index is not None else patterns_by_shape()
    count = text.count(":") + 1
    best_wildcards, best = 0, None
    for shape in ((count, text.split(":", 1)[0]), (count, None)):
        found = index.get(shape)
        matched = found and found[0](text)
        if not matched:
            continue
        # The alternative that matched is the group that closed last: its own groups sit inside it.
        wildcards, pattern = found[1][matched.lastindex]
        if best is None or wildcards < best_wildcards:  # a literal first segment wins a tie
            best_wildcards, best = wildcards, pattern
    return best


def _named(segments: list[str]) -> list[str]:
    """A key's segments without its hash tag (``school:{school}:course:7`` reads as ``school:course:7``):
    the tag says where a key lives on a cluster, not what it holds."""
    return [s for s in segments if not (s.startswith("{") and s.endswith("}"))]


_documents: tuple[tuple, dict[str, list[KeyPattern]]] = ((), {})


def _document_patterns(app: str) -> list[KeyPattern]:
    """Patterns of one document per id: ``app:entity:*`` (``app:{tag}:entity:*``), once per registry."""
    global _documents
    signature = tuple(keyspace.patterns)
    if _documents[0] != signature:
        by_app: dict[str, list[KeyPattern]] = {}
        for p in keyspace.patterns:
            named = _named(p.segments)  # a tag's own wildcard (a partition's) names no second id
            if len(named) == 3 and named[2] == "*" and sum("*" in s for s in named) == 1:
                by_app.setdefault(p.app, []).append(p)
        _documents = (signature, by_app)
    return _documents[1].get(app, [])


def id_pattern(key: str, key_owner: KeyPattern | None) -> KeyPattern | None:
    """The document pattern whose ids the members of ``key`` are: a pattern whose ``index`` is this
    key, else by the key's segments (``school:course:7:students`` holds ``school:student:*`` ids),
    else, for an index key (``catalog:index:tag:red``), the app's only document pattern."""
    if key_owner is None:
        return None
    documents = _document_patterns(key_owner.app)
    for pattern in documents:
        if pattern.index == key:
            return pattern
    by_entity = {_named(p.segments)[1]: p for p in documents}
    segments = _named(key.split(":"))
    for segment in reversed(segments[2:]):
        for name in (segment, segment.removesuffix("s"), segment.removesuffix("es")):
            if name in by_entity:
                return by_entity[name]
    if len(segments) > 2 and segments[1] == "index" and len(documents) == 1:
        return documents[0]
    return None


def field_id_pattern(field: bytes, key_owner: KeyPattern | None) -> KeyPattern | None:
    """The document pattern a hash field holds an id of: ``instructor_id`` -> ``school:instructor:*``."""
    if key_owner is None or not field.endswith(b"_id"):
        return None
    entity = field[:-3].decode("utf-8", "replace")
    return next((p for p in _document_patterns(key_owner.app) if _named(p.segments)[1] == entity), None)


_relations: dict[tuple, list[tuple[int, list[str], KeyPattern]]] = {}  # (owner, registry) -> its relations


def related_keys(key: str, key_owner: KeyPattern | None) -> list[tuple[str, KeyPattern]]:
    """The other keys of the same document: a document's relation keys (``catalog:product:42`` ->
    ``catalog:product:42:reviews``) and a relation key's document, worked out once per owner."""
    if key_owner is None:
        return []
    signature = tuple(p.pattern for p in keyspace.patterns)
    relations = _relations.get((key_owner, signature))
    if relations is None:
        mine, relations = key_owner.segments, []
        for pattern in sorted(keyspace.patterns, key=lambda p: p.pattern):
            theirs = pattern.segments
            if pattern.wildcards != key_owner.wildcards:
                continue
            if len(theirs) > len(mine) and theirs[: len(mine)] == mine:
                relations.append((len(mine), theirs[len(mine) :], pattern))  # the key, then these segments
            elif len(theirs) < len(mine) and mine[: len(theirs)] == theirs:
                relations.append((len(theirs), [], pattern))  # the key's first segments
        if len(_relations) > 1000:
            _relations.clear()
        _relations[(key_owner, signature)] = relations
    parts = key.split(":")
    return [(":".join([*parts[:kept], *tail]), pattern) for kept, tail, pattern in relations]


_MEMBER_ID = re.compile(rb"(?:\A|[\x00:|])(\d{1,20})\Z")


def member_id(member: bytes) -> str:
    """The id a member of an index holds: the member, or its tail after a separator (``name<NUL>42``)."""
    found = _MEMBER_ID.search(bytes(member))
    return found.group(1).decode() if found else ""
