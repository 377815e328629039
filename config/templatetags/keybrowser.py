"""The key browser's template filter: a key name, shown in every table of keys and on each key's page."""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()


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
