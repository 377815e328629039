"""Query strings for the product list's chips, keeping search, sort and other filters, and links
from stored data that are only ever web addresses or paths on this site."""

from urllib.parse import urlsplit

from django import template

from catalog.documents import split_tags, tag_slug

register = template.Library()


@register.filter
def type_query(state, slug):
    """The list filtered by one type (all types for "")."""
    return state.query(type=slug, page=1)


@register.filter
def tag_query(state, tag):
    """The list with ``tag`` added to the all-of tags, or dropped from them when already chosen."""
    chosen = [tag_slug(t) for t in split_tags(state.filters.get("tags_all", ""))]
    kept = [t for t in chosen if t != tag] if tag in chosen else [*chosen, tag]
    return state.query(tags_all=",".join(dict.fromkeys(kept)), page=1)


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
