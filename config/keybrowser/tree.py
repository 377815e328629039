"""The namespace view: counts by ``:`` segment, carried across bounded SCAN chunks.

A node's counts come from one bounded SCAN under its prefix (``store.tree_chunk``); "scan further"
carries the counts so far in a signed token in the link, so the browser stores nothing and the
counts add up to the whole prefix once the cursor comes back to 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core import signing
from django.urls import reverse
from django.utils.http import urlencode

from config.keybrowser import store
from config.keybrowser.display import LINK_LIMIT, Shown, key_param, key_url, show
from config.keybrowser.store import TreeChunk

SALT = "config.keybrowser.tree"
MAX_CARRIED = 2500  # characters of the carried counts in a link


def carried(token: str) -> TreeChunk | None:
    if not token:
        return None
    data = signing.loads(token, salt=SALT)
    children = {name.encode("latin-1"): int(n) for name, n in data["c"]}
    return TreeChunk(children, int(data["o"]), int(data["s"]), 0, int(data["n"]))


def merge(chunk: TreeChunk, before: TreeChunk | None) -> TreeChunk:
    """The counts of this chunk added to the counts carried from earlier chunks."""
    if before is None:
        return chunk
    children, others = dict(before.children), before.others + chunk.others
    for name, count in chunk.children.items():
        if name in children or len(children) < store.TREE_CHILDREN:
            children[name] = children.get(name, 0) + count
        else:
            others += count
    return TreeChunk(children, others, before.seen + chunk.seen, chunk.cursor, before.steps + chunk.steps, chunk.dbsize)


def _token(chunk: TreeChunk) -> str:
    ranked = sorted(chunk.children.items(), key=lambda item: -item[1])
    others = chunk.others
    while True:
        data = {"c": [[n.decode("latin-1"), c] for n, c in ranked], "o": others, "s": chunk.seen, "n": chunk.steps}
        signed = signing.dumps(data, salt=SALT, compress=True)
        if len(signed) <= MAX_CARRIED or not ranked:
            return signed
        # Too many names to carry: the smallest counts join "others".
        cut = max(1, len(ranked) // 4)
        others += sum(c for _, c in ranked[-cut:])
        ranked = ranked[:-cut]


def more_query(prefix: bytes, chunk: TreeChunk) -> str:
    if not chunk.cursor:
        return ""
    return f"?prefix={key_param(prefix)}&" + urlencode({"cursor": chunk.cursor, "acc": _token(chunk)})


@dataclass(frozen=True)
class Node:
    name: Shown
    count: int
    namespace: bool  # a prefix with keys under it, not a key
    url: str


def nodes(prefix: bytes, chunk: TreeChunk) -> list[Node]:
    """Namespaces first, then keys, each by name."""
    tree_url, browse_url = reverse("keybrowser:tree"), reverse("keybrowser:browse")
    found = []
    for name, count in chunk.children.items():
        full = prefix + name
        namespace = name.endswith(b":")
        if len(full) > LINK_LIMIT:
            url = ""  # too long for a request line: listed, cut, with no link
        else:
            url = f"{tree_url}?prefix={key_param(full)}" if namespace else key_url(full, browse_url)
        label = show(name, limit=200, name=True) if name else Shown("(this very key)")
        found.append(Node(label, count, namespace, url))
    return sorted(found, key=lambda n: (not n.namespace, n.name.text))


def crumbs(prefix: bytes) -> list[tuple[Shown, str]]:
    """(segment, link) for each ancestor of ``prefix``, for the breadcrumbs of a node."""
    tree_url = reverse("keybrowser:tree")
    parts, trail = [], b""
    pieces = prefix.split(b":")
    for segment in pieces[:-1]:
        trail += segment + b":"
        parts.append((show(segment + b":", limit=100, name=True), f"{tree_url}?prefix={key_param(trail)}"))
    if pieces[-1]:
        parts.append((show(pieces[-1], limit=100, name=True), f"{tree_url}?prefix={key_param(prefix)}"))
    return parts
