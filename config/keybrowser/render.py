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
        html = f'<pre class="value json">{escape(value.json)}</pre>'
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
