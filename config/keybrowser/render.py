"""Key names and values as HTML, built once per value in Python instead of a template per row.

Every piece of stored text goes through ``escape`` before it is joined, so the
result is marked safe only after nothing from Redis is left unescaped.
"""

from __future__ import annotations

from html import escape

from django.utils.safestring import SafeString, mark_safe

from config.keybrowser.display import Cell, Shown


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
    return mark_safe(html)  # noqa: S308  (escaped above)


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
    return mark_safe(html)  # noqa: S308  (escaped above)


def key_rows(rows) -> SafeString:
    """The ``<tr>`` of each key of a list (``display.KeyRow``): built here once per row,
    not by a dozen template nodes per row."""
    out = []
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
        if row.owner:
            who = (
                f'<span title="{escape(row.owner.modeling)}">{escape(row.owner.app)} · '
                f"<code>{escape(row.owner.pattern)}</code></span>"
            )
            if row.screen_url:
                who += f' · <a href="{escape(row.screen_url)}">screen</a>'
        else:
            who = '<span class="flag">orphan</span>'
        kind = escape(meta.type)
        length = "—" if meta.length is None else meta.length
        out.append(
            f'<tr><td>{link}</td><td class="nowrap"><span class="badge type-{kind}">{kind}</span></td>'
            f'<td class="num">{length}</td><td class="nowrap">{ttl}</td><td class="nowrap">{escape(meta.encoding)}</td>'
            f'<td class="num">{escape(row.memory)}</td><td>{who}</td></tr>'
        )
    return mark_safe("\n".join(out))  # noqa: S308  (escaped above)
