"""The key browser's template filters: a key name and a value, shown by the hundred on its pages."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

BINARY = "Bytes that are not printable UTF-8 are shown escaped"
WRAP = ":<wbr>"  # where a long key name may wrap: after each ":"


@register.filter
def keyname(name) -> SafeString:
    """A key name (``display.Shown``, or text) in a span that may wrap after each ``:``, flagged when
    its bytes were shown escaped or it was cut. Built here rather than by an include: a list shows
    fifty. One ``format_html`` escapes every segment, each a placeholder of the span, joined by ``WRAP``."""
    segments = str(name).split(":")
    if getattr(name, "escaped", False):
        span = '<span class="keyname escaped" title="Shown with its non-printable bytes escaped">'
    else:
        span = '<span class="keyname">'
    html = format_html(span + WRAP.join(["{}"] * len(segments)) + "</span>", *segments)
    if getattr(name, "truncated", False):
        html += format_html(
            '<span class="flag">name cut: first {} of {} bytes</span>', name.shown_bytes, name.size_text
        )
    return html


@register.filter
def cell(value) -> SafeString:
    """One value of a key (``display.Cell``): its text or pretty JSON, flagged, linked to what it names."""
    shown, link = value.shown, value.link
    if value.json:
        html = format_html('<pre class="value json" tabindex="0">{}</pre>', value.json)
    else:
        html = format_html('<span class="value{}">{}</span>', " escaped" if shown.escaped else "", shown.text)
    if shown.escaped:
        html += format_html('<span class="flag" title="{}">binary</span>', BINARY)
    if shown.truncated:
        html += format_html('<span class="flag">first {} of {} bytes</span>', len(shown.text), value.size)
    if value.download:
        html += format_html(' <a class="download" href="{}" download>download</a>', value.download)
    if link.key_url:
        html += format_html(' <a class="member-key" href="{}">key</a>', link.key_url)
    if link.screen_url:
        html += format_html(' · <a class="member-screen" href="{}">screen</a>', link.screen_url)
    return html
