"""The key browser's template filters: a key name and a value, shown by the hundred on its pages."""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

BINARY = "Bytes that are not printable UTF-8 are shown escaped"


@register.filter
def keyname(name) -> SafeString:
    """A key name (``display.Shown``, or text) in a span that may wrap after each ``:``, flagged when
    its bytes were shown escaped or it was cut. Built here rather than by an include: a list shows
    fifty, and each segment is its own escaped piece."""
    *head, last = str(name).split(":")
    text = format_html("{}{}", format_html_join("", "{}:<wbr>", ((part,) for part in head)), last)
    if getattr(name, "escaped", False):
        html = format_html(
            '<span class="keyname escaped" title="Shown with its non-printable bytes escaped">{}</span>', text
        )
    else:
        html = format_html('<span class="keyname">{}</span>', text)
    if getattr(name, "truncated", False):
        html = format_html(
            '{}<span class="flag">name cut: first {} of {} bytes</span>', html, name.shown_bytes, name.size_text
        )
    return html


@register.filter
def cell(value) -> SafeString:
    """One value of a key (``display.Cell``): its text or pretty JSON, flagged when shown escaped or
    cut, and linked to the key and the screen it names. A key page shows a hundred."""
    shown, link = value.shown, value.link
    if value.json:
        parts = [format_html('<pre class="value json" tabindex="0">{}</pre>', value.json)]
    else:
        parts = [format_html('<span class="value{}">{}</span>', " escaped" if shown.escaped else "", shown.text)]
    if shown.escaped:
        parts.append(format_html('<span class="flag" title="{}">binary</span>', BINARY))
    if shown.truncated:
        parts.append(format_html('<span class="flag">first {} of {} bytes</span>', len(shown.text), value.size))
    if link.key_url:
        parts.append(format_html(' <a class="member-key" href="{}">key</a>', link.key_url))
    if link.screen_url:
        parts.append(format_html(' · <a class="member-screen" href="{}">screen</a>', link.screen_url))
    return format_html_join("", "{}", ((part,) for part in parts))
