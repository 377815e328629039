"""The dashboard's shared template tags: list links and the shared parts every page repeats
(pagination, a form's fields with their errors), built in Python in one call each instead
of a template node per attribute. Every value that comes from data or a form is escaped."""

from django import template
from django.conf import settings
from django.template.base import render_value_in_context
from django.templatetags.static import static
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe

from config import layout

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
    head = state.heads.get(key)
    if head is not None:
        return head.mark
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


# --- static files ----------------------------------------------------------------------------

_assets: dict[tuple, str] = {}  # (path, the static settings) -> its URL


@register.simple_tag
def asset(path: str) -> str:
    """``{% static path %}``, worked out once per process for the layout's own files: the
    storage's URL for a name never changes while its settings stay (a deployment's manifest
    is read once at start), and every page links the same three."""
    key = (path, settings.STATIC_URL, settings.STATIC_ROOT, settings.STORAGES["staticfiles"]["BACKEND"])
    url = _assets.get(key)
    if url is None:
        url = _assets[key] = static(path)
    return url


_HEAD = (
    '<link rel="stylesheet" href="{css}">\n'
    """  <meta name="htmx-config" content='{{"includeIndicatorStyles": false, "allowEval": false}}'>\n"""
    '  <script src="{htmx}" defer></script>\n'
    '  <script src="{app}" defer></script>'
)


@register.simple_tag
def layout_head() -> SafeString:
    """The layout's stylesheet, htmx's settings and its two scripts, with their static URLs (``asset``)."""
    return mark_safe(  # noqa: S308  (the storage's URLs of fixed names, escaped)
        _HEAD.format(
            css=escape(asset("css/app.css")), htmx=escape(asset("js/htmx.min.js")), app=escape(asset("js/app.js"))
        )
    )


@register.simple_tag(takes_context=True)
def layout_top(context) -> SafeString:
    """``<body>`` to ``<main>``: the menu and the sign-out form (``config.layout.top_html``)."""
    return layout.top_html(context)


@register.simple_tag(takes_context=True)
def layout_messages(context) -> SafeString:
    """The request's messages, if any (``config.layout.messages_html``)."""
    return layout.messages_html(context)


# --- the autocomplete field ------------------------------------------------------------------


def _shown(context, name: str, default=None) -> str:
    """``{{ name }}`` (``{{ name|default:default }}`` when ``default`` is given), as the template
    printed it: "" when the context lacks it, localized and escaped unless marked safe."""
    if name not in context:
        value = default if default is not None else ""
    else:
        value = context[name]
        if default is not None and not value:
            value = default
    return render_value_in_context(value, context)


@register.simple_tag(takes_context=True)
def autocomplete_field(context) -> SafeString:
    """The ARIA combobox of ``includes/autocomplete.html`` (see ``config.autocomplete``), built in
    Python from the include's parameters: name, id, url, label, value, placeholder, mode, fill_name,
    fill_value. Every value is escaped as ``{{ }}`` would."""
    field_id, name = _shown(context, "id"), _shown(context, "name")
    placeholder = f' placeholder="{_shown(context, "placeholder")}"' if context.get("placeholder") else ""
    fill = ""
    if context.get("mode") == "fill":
        fill = (
            f'<input type="hidden" name="{_shown(context, "fill_name")}" '
            f'value="{_shown(context, "fill_value", "")}" data-autocomplete-value>'
        )
    label = _shown(context, "label") if context.get("label") else name
    return mark_safe(  # noqa: S308  (every value escaped by _shown)
        f'<div class="autocomplete" data-autocomplete="{_shown(context, "mode", "go")}">\n'
        f'  <input type="text" name="{name}" id="{field_id}" value="{_shown(context, "value", "")}"{placeholder}\n'
        '         role="combobox" aria-autocomplete="list" aria-expanded="false" '
        f'aria-controls="{field_id}-listbox" autocomplete="off" maxlength="100"\n'
        f"""         hx-get="{_shown(context, "url")}" hx-vals='{{"listbox": "{field_id}-listbox"}}' """
        'hx-trigger="input changed delay:250ms" hx-sync="this:replace"\n'
        f'         hx-target="#{field_id}-listbox" hx-swap="innerHTML">\n'
        f"  {fill}\n"
        f'  <ul class="autocomplete-options" id="{field_id}-listbox" role="listbox" '
        f'aria-label="Suggestions for {label}" hidden></ul>\n'
        "</div>\n"
    )


# --- empty state -----------------------------------------------------------------------------


@register.simple_tag
def empty_state(title="", text="", action_url="", action_label="") -> SafeString:
    """An empty list's message: its title, a sentence and an optional action, each escaped.
    One node where an include cost a template of its own and a lookup of every name it did not get."""
    parts = [f'<div class="empty-state">\n  <p class="empty-title">{conditional_escape(title)}</p>\n']
    if text:
        parts.append(f"  <p>{conditional_escape(text)}</p>\n")
    if action_url:
        href, label = conditional_escape(action_url), conditional_escape(action_label)
        parts.append(f'  <p><a class="button" href="{href}">{label}</a></p>\n')
    parts.append("</div>\n")
    return mark_safe("".join(parts))  # fixed markup; every value escaped above


# --- pagination ------------------------------------------------------------------------------


def _page_link(rel: str, label: str, href: str, target: str) -> str:
    href = escape(href)
    htmx = f' hx-get="{href}" hx-target="{escape(target)}" hx-push-url="true"' if target else ""
    return f'  <a rel="{rel}" href="{href}"{htmx}>{label}</a>\n'


@register.simple_tag
def pagination(page, state=None, target="", base="") -> SafeString:
    """Pagination for a Django Page (``includes/pagination.html``): nothing for a single page.

    ``state`` (config.listing.ListState, optional) keeps the search, sort and filters in the
    links; ``target`` (an htmx target) loads a page in place and pushes the URL; ``base`` is
    the path the links go to, for a fragment loaded under another page's URL."""
    paginator = page.paginator
    if paginator.num_pages <= 1:
        return mark_safe("")
    base = str(base or "")
    target = str(target or "")
    parts = ['<nav class="pagination" aria-label="Pages">\n']
    if page.has_previous():
        parts.append(_page_link("prev", "‹ Previous", base + page_query(state, page.previous_page_number()), target))
    where = f"Page {page.number} of {paginator.num_pages} · {paginator.count} in all"
    parts.append(f'  <span class="current">{where}</span>\n')
    if page.has_next():
        parts.append(_page_link("next", "Next ›", base + page_query(state, page.next_page_number()), target))
    parts.append("</nav>\n")
    return mark_safe("".join(parts))  # fixed markup; the links and the target escaped above


# --- forms -----------------------------------------------------------------------------------


def _text(value) -> str:
    """A value as ``{{ value }}`` shows it: escaped unless already safe, None as "None"."""
    return conditional_escape(value)


def _field(field) -> str:
    errors = field.errors
    parts = [f'<div class="field{" has-error" if errors else ""}">\n']
    if field.widget_type == "checkbox":
        parts.append(f"  <label>{field} {_text(field.label)}</label>\n")
    else:
        required = " *" if field.field.required else ""
        parts.append(f'  <label for="{_text(field.id_for_label)}">{_text(field.label)}{required}</label>\n  {field}\n')
    if field.help_text:
        parts.append(f'  <span class="hint">{_text(field.help_text)}</span>\n')
    for number, error in enumerate(errors):
        first = f' id="{_text(field.auto_id)}-error"' if number == 0 else ""
        parts.append(f'<span class="field-error"{first}>{_text(error)}</span>')
    parts.append("\n</div>\n")
    return "".join(parts)


def _error_summary(form) -> str:
    errors = form.errors
    if len(errors) <= 1:
        return ""
    items = "".join(
        f'<li><a href="#{_text(field.id_for_label)}">{_text(field.label)}</a>: {_text(field.errors[0])}</li>'
        for field in form.visible_fields()
        if field.errors
    )
    return (
        '<div class="errors error-summary" role="alert" id="error-summary">\n'
        f"  <p><strong>Please correct the {len(errors)} errors below.</strong></p>\n"
        f"  <ul>{items}</ul>\n</div>"
    )


@register.simple_tag
def form_field(field) -> SafeString:
    """One form field (``includes/field.html``): its label (a checkbox inside its own), help
    text, and its errors beside it, the first with the id the error summary can point at."""
    return mark_safe(_field(field))  # the widget is Django's own HTML; every other value escaped


@register.simple_tag
def error_summary(form) -> SafeString:
    """With two or more field errors, a summary at the top of the form, each entry linked to its field."""
    return mark_safe(_error_summary(form)) if form else mark_safe("")  # every value escaped


@register.simple_tag
def form_fields(form) -> SafeString:
    """A whole form (``includes/form_fields.html``): the error summary, its non-field errors,
    hidden fields, and each visible field with its errors beside it."""
    parts = [_error_summary(form), "\n"]
    non_field = form.non_field_errors()
    if non_field:
        parts.append('<div class="errors" role="alert">')
        parts.extend(f"<p>{_text(error)}</p>" for error in non_field)
        parts.append("</div>")
    parts.append("\n")
    parts.extend(str(field) for field in form.hidden_fields())
    parts.append("\n")
    parts.extend(_field(field) for field in form.visible_fields())
    return mark_safe("".join(parts))  # widgets are Django's own HTML; every other value escaped
