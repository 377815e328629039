from django import template

register = template.Library()


@register.filter
def page_query(state, number):
    """The query string for page ``number`` of a list, keeping its search, sort and filters."""
    return state.query(page=number) if state else f"?page={number}"


@register.filter
def sort_query(state, key):
    """The query string that sorts a list by ``key``, toggling the direction."""
    return state.sort_link(key)


@register.filter
def sort_mark(state, key):
    """▲ or ▼ beside the column the list is sorted by."""
    if state.sort_key != key:
        return ""
    return "▼" if state.descending else "▲"


@register.filter
def trips_of(trace, origin):
    """Round trips of one origin: "data" for the screen's own reads, "django" for the session."""
    return trace.round_trip_count(origin)


@register.filter
def site_link(value) -> str:
    """A link read from stored data, if it is one: a path on this site (``/x``, not
    ``//host`` nor ``/\\host``) or an http(s) URL; "" for anything else (``javascript:``,
    ``data:``, ...), which the template then shows as text."""
    from urllib.parse import urlsplit

    text = str(value or "").strip()
    if not text or any(ord(c) < 32 or c.isspace() for c in text):
        return ""
    if text.startswith("/") and not text.startswith(("//", "/\\")):
        return text
    try:
        parts = urlsplit(text)
    except ValueError:
        return ""
    return text if parts.scheme in {"http", "https"} and parts.netloc else ""
