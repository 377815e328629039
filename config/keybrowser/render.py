"""Key names and values as HTML, built once per value in Python instead of a template per row.

Every piece of stored text goes through ``escape`` before it is joined, so the
result is marked safe only after nothing from Redis is left unescaped. It is marked
with ``SafeString(text)``, what ``mark_safe`` gives for a ``str``, without its check
for lazy arguments on each of a page's hundred values.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from django.template.defaultfilters import date
from django.urls import get_script_prefix, get_urlconf
from django.utils.safestring import SafeString

from config.keybrowser.display import Cell, Shown, size
from config.urlpaths import path_of


def _wrapped(text: str) -> str:
    """Escaped text with a line-break opportunity after each ``:``, so long names wrap at their segments."""
    return escape(text).replace(":", ":<wbr>")


def keyname(name: Shown) -> SafeString:
    if not isinstance(name, Shown):
        name = Shown(str(name))
    flags = ' escaped" title="Shown with its non-printable bytes escaped' if name.escaped else ""
    html = f'<span class="keyname{flags}">{_wrapped(name.text)}</span>'
    if name.truncated:
        html += f'<span class="flag">name cut: first {len(name.text.encode())} of {name.size:,} bytes</span>'
    return SafeString(html)  # safe: escaped above


def cell(value: Cell) -> SafeString:
    shown = value.shown
    if value.json:
        html = f'<pre class="value json" tabindex="0">{escape(value.json)}</pre>'
    else:
        html = f'<span class="value{" escaped" if shown.escaped else ""}">{escape(shown.text)}</span>'
    if shown.escaped:
        html += '<span class="flag" title="Bytes that are not printable UTF-8 are shown escaped">binary</span>'
    if shown.truncated:
        html += f'<span class="flag">first {len(shown.text)} of {value.size} bytes</span>'
    if value.link.key_url:
        html += f' <a class="member-key" href="{escape(value.link.key_url)}">key</a>'
    if value.link.screen_url:
        html += f' · <a class="member-screen" href="{escape(value.link.screen_url)}">screen</a>'
    return SafeString(html)  # safe: escaped above


def key_rows(rows) -> SafeString:
    """The ``<tr>`` of each key of a list (``display.KeyRow``): built here once per row,
    not by a dozen template nodes per row. What rows share (a type's badge, an encoding,
    an owner's pattern) is escaped once per list."""
    out = []
    badges: dict[str, str] = {}
    encodings: dict[str, str] = {}
    owners: dict[int, str] = {}
    for row in rows:
        meta, name = row.meta, keyname(row.name)
        link = (
            f'<a href="{escape(row.url)}">{name}</a>'
            if row.url
            else f'{name} <span class="muted">(too long for a link)</span>'
        )
        if meta.node:
            link += f' <span class="muted where">{escape(meta.node)} · slot {meta.slot}</span>'
        if meta.ttl_ms is not None:
            ttl = escape(row.ttl)
        else:
            ttl = '<span class="muted">none</span>' if meta.exists else '<span class="muted">missing</span>'
        pattern = row.owner
        if pattern is not None:
            who = owners.get(id(pattern))
            if who is None:
                who = owners[id(pattern)] = (
                    f'<span title="{escape(pattern.modeling)}">{escape(pattern.app)} · '
                    f"<code>{escape(pattern.pattern)}</code></span>"
                )
            if row.screen_url:
                who += f' · <a href="{escape(row.screen_url)}">screen</a>'
        else:
            who = '<span class="flag">orphan</span>'
        badge = badges.get(meta.type)
        if badge is None:
            kind = escape(meta.type)
            badge = badges[meta.type] = f'<span class="badge type-{kind}">{kind}</span>'
        encoding = encodings.get(meta.encoding)
        if encoding is None:
            encoding = encodings[meta.encoding] = escape(meta.encoding)
        length = "—" if meta.length is None else meta.length
        out.append(
            f'<tr><td>{link}</td><td class="nowrap">{badge}</td>'
            f'<td class="num">{length}</td><td class="nowrap">{ttl}</td><td class="nowrap">{encoding}</td>'
            f'<td class="num">{escape(row.memory)}</td><td>{who}</td></tr>'
        )
    return SafeString("\n".join(out))  # safe: escaped above


# --- one key's page: its metadata and its owner, built once per page ---------------------------


def key_meta(meta, owner, ttl: str, expires_at) -> SafeString:
    """The metadata card of an existing key (``store.KeyMeta``): type (flagged when it is not
    the registered one), length, TTL with its expiry time, encoding, memory, and on a cluster
    its node and slot."""
    kind = escape(meta.type)
    flag = f' <span class="flag">registered as {escape(owner.type)}</span>' if owner and owner.type != meta.type else ""
    length = "—" if meta.length is None else str(meta.length)
    if meta.type == "string":
        length += " byte" if meta.length == 1 else " bytes"
    if expires_at:
        shown_ttl = (
            f'<span data-expires-ms="{meta.ttl_ms}">{escape(ttl)}</span><br><span class="muted">expires '
            f'<time datetime="{expires_at.isoformat()}">{date(expires_at, "Y-m-d H:i:s")} UTC</time></span>'
        )
    else:
        shown_ttl = "none (persistent)"
    memory = "" if meta.memory is None else escape(size(meta.memory))
    node = (
        f'\n    <div><dt>Node</dt><dd id="node">{escape(meta.node)} · slot {meta.slot}</dd></div>' if meta.node else ""
    )
    return SafeString(  # safe: numbers, dates and escaped text
        '<section class="card" id="key-meta">\n  <dl class="meta-grid">\n'
        f'    <div><dt>Type</dt><dd><span class="badge type-{kind}">{kind}</span>{flag}</dd></div>\n'
        f"    <div><dt>Length</dt><dd>{length}</dd></div>\n"
        f'    <div><dt>TTL</dt><dd id="ttl">{shown_ttl}</dd></div>\n'
        f"    <div><dt>Encoding</dt><dd>{escape(meta.encoding)}</dd></div>\n"
        f"    <div><dt>Memory</dt><dd>{memory}</dd></div>{node}\n"
        "  </dl>\n</section>"
    )


_owner_heads: dict[tuple, str] = {}  # (pattern, URLconf, script prefix) -> what the owner card says of it


def _owner_head(owner, screens) -> str:
    """What the owner card says of a registered pattern, the same for each of its keys: built once."""
    cache_key = (owner, get_urlconf(), get_script_prefix())
    head = _owner_heads.get(cache_key)
    if head is None:
        registered = f"{path_of('keybrowser:registered')}?pattern={quote(owner.pattern, safe='')}"
        why = f"\n    <dt>Why</dt><dd>{escape(owner.why)}</dd>" if owner.why else ""
        listed = ", ".join(
            f'<a href="{escape(url)}">{escape(screen)}</a>' if url else f"<code>{escape(screen)}</code>"
            for screen, url in screens
        )
        head = _owner_heads[cache_key] = (
            f"\n    <dt>App</dt><dd>{escape(owner.app)}</dd>"
            f'\n    <dt>Pattern</dt><dd><a href="{escape(registered)}"><code>{escape(owner.pattern)}</code></a> '
            f'<span class="badge type-{escape(owner.type)}">{escape(owner.type)}</span></dd>'
            f"\n    <dt>Modeling pattern</dt><dd>{escape(owner.modeling)}</dd>"
            f"\n    <dt>Serves</dt><dd>{escape(owner.serves)}</dd>{why}"
            + (f"\n    <dt>Screens</dt><dd>{listed}</dd>" if screens else "")
        )
    return head


def key_owner(owner, screens, screen_url: str, related, ids_of) -> SafeString:
    """The owner card of a key: its registered pattern and what it says, the app screen of
    this key, the other keys of the same document (whether each exists), or "orphan"."""
    if owner is None:
        orphans = escape(path_of("keybrowser:orphans"))
        return SafeString(  # safe: fixed text and the site's own URL
            '<section class="card" id="owner">\n  <h2>Owner</h2>\n'
            f'  <p>No registered pattern owns this key: it is an <a href="{orphans}">orphan</a>, '
            "stray data no screen reads.</p>\n</section>"
        )
    html = ['<section class="card" id="owner">\n  <h2>Owner</h2>\n  <dl class="owner">', _owner_head(owner, screens)]
    if screen_url:
        url = escape(screen_url)
        html.append(f'\n    <dt>In the app</dt><dd><a id="screen-link" href="{url}">{url}</a></dd>')
    if related:
        items = []
        for name, pattern, url, exists in related:
            shown = f'<a href="{escape(url)}">{keyname(name)}</a>' if url else keyname(name)
            about = f"{escape(pattern.type)} · {escape(pattern.modeling)}{'' if exists else ' · absent'}"
            items.append(f'<li>{shown} <span class="muted">{about}</span></li>')
        html.append(f'\n    <dt>Same document</dt><dd><ul class="related" id="related">{"".join(items)}</ul></dd>')
    if ids_of:
        html.append(
            f"\n    <dt>Members</dt><dd>ids of <code>{escape(ids_of.pattern)}</code>: "
            "each links to its key and its screen</dd>"
        )
    html.append("\n  </dl>\n</section>")
    return SafeString("".join(html))  # safe: every value escaped above
