"""The dashboard's shared template tags: list links, and the parts every page repeats
(pagination, an empty list's message, a form's fields with their errors), each a template
of ``templates/includes/``."""

from urllib.parse import urlsplit

from django import template
from django.template.loader import render_to_string
from django.templatetags.static import static

register = template.Library()


@register.filter
def sort_query(state, key):
    """The query string that sorts a list by ``key``, toggling the direction."""
    return state.sort_link(key)


@register.filter
def sort_mark(state, key):
    """▲ or ▼ beside the column the list is sorted by."""
    head = state.heads.get(key)
    if head is not None:
        return head.mark
    if state.sort_key != key:
        return ""
    return "▼" if state.descending else "▲"


@register.filter
def site_link(value) -> str:
    """A link read from stored data, if it is one: a path on this site (``/x``, not
    ``//host`` nor ``/\\host``) or an http(s) URL; "" for anything else (``javascript:``,
    ``data:``, ...), which the template then shows as text."""
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


@register.simple_tag
def asset(path: str) -> str:
    """``{% static path %}``, for the templates that load it from here."""
    return static(path)


@register.inclusion_tag("includes/empty_state.html", takes_context=True)
def empty_state(context, title="", text="", action_url="", action_label="") -> dict:
    """An empty list's message: its title, a sentence and an optional action (a write: only
    for a user who may write in the page's app)."""
    shown = {"title": title, "text": text, "action_url": action_url, "action_label": action_label}
    return {**shown, "layout": context.get("layout")}


@register.inclusion_tag("includes/pagination.html")
def pagination(page, state=None, target="", base="") -> dict:
    """Pagination for a Django Page (``includes/pagination.html``): numbered and elided pages, and a
    page size choice; nothing but the count for a single page. Each link keeps the list's search, sort
    and filters (``state.query``); the links are made here, once each, for the template to print."""
    base = base or ""

    def href(number: int) -> str:
        return base + (state.query(page=number) if state else f"?page={number}")

    paginator = page.paginator
    elided = paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1)
    links = [None if number == paginator.ELLIPSIS else {"number": number, "href": href(number)} for number in elided]
    shown = {
        "number": page.number, "count": paginator.count, "num_pages": paginator.num_pages,
        "links": links, "target": target or "", "base": base,
        "previous": href(page.previous_page_number()) if page.has_previous() else "",
        "next": href(page.next_page_number()) if page.has_next() else "",
        "sizes": (state.kept_params(), state.page_sizes, state.per_page, state.default_per_page) if state else None,
    }  # fmt: skip
    # every value the template prints: the fragment cache keeps its HTML by them
    return {**shown, "page": page, "state": state, "key": repr(shown)}


@register.filter
def fields_in_error(form) -> list:
    """The visible fields of ``form`` that have an error, in form order (the error summary's links)."""
    return [field for field in form.visible_fields() if field.errors]


@register.simple_tag
def form_field(field) -> str:
    """One form field with its label, help text and errors (``includes/field.html``)."""
    return render_to_string("includes/field.html", {"field": field})


@register.simple_tag
def error_summary(form) -> str:
    """The summary of a form with errors, at its top (``includes/error_summary.html``)."""
    return render_to_string("includes/error_summary.html", {"form": form}) if form else ""


@register.simple_tag
def form_fields(form) -> str:
    """A whole form (``includes/form_fields.html``); also called from Python for a form rendered once."""
    return render_to_string("includes/form_fields.html", {"form": form})
