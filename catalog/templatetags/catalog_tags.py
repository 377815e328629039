"""Links from stored data that are only ever web addresses or paths on this site."""

from urllib.parse import urlsplit

from django import template

register = template.Library()


@register.filter
def web_link(value) -> str:
    """``value`` when it is an http(s) address or a path on this site, else "": a stored
    ``javascript:`` or ``data:`` value (or anything else) is shown as text, never linked."""
    text = str(value or "").strip()
    if text.startswith("/") and not text.startswith("//") and "\\" not in text:
        return text
    try:
        parts = urlsplit(text)
    except ValueError:
        return ""
    return (
        text if parts.scheme in ("http", "https") and parts.netloc and not any(c in text for c in "\x00\r\n\t") else ""
    )
