"""The Redis panel of every page, tied to the key browser."""

from html import escape

from django import template
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.safestring import SafeString

from config.keybrowser import panel, render

register = template.Library()


@register.simple_tag
def redis_panel(trace, path="", oob=False):
    """The panel, built in Python (see ``keybrowser.panel``): its cost does not grow with the commands."""
    return panel.panel_html(trace, path or "", bool(oob))


@register.filter
def keyname(name) -> SafeString:
    """A key name (``display.Shown``) as a span that wraps after each ``:``, flagged when escaped or cut."""
    return render.keyname(name)


@register.filter
def cell(value) -> SafeString:
    """One value of a key (``display.Cell``): text or pretty JSON, its flags and its links."""
    return render.cell(value)


@register.filter
def key_rows(rows) -> SafeString:
    """The rows of a key table (``display.KeyRow``), built in Python (see ``keybrowser.render``)."""
    return render.key_rows(rows)


# --- the key list ------------------------------------------------------------------------------


def _plural(count) -> str:
    return "" if count == 1 else "s"


@register.simple_tag(takes_context=True)
def scan_status(context) -> SafeString:
    """The key list's scan status line (``page``, ``rows``, ``continued``, ``listed``, ``oob``), built in
    Python: how many keys from how many SCAN steps, and whether the SCAN is finished."""
    page, rows, continued = context["page"], context.get("rows") or [], context.get("continued")
    oob = ' hx-swap-oob="true"' if context.get("oob") else ""
    back = (
        f'Continued from a cursor · <a href="{escape(context.get("first_query", ""))}">back to the start</a> · '
        if continued
        else ""
    )
    so_far = f", {int(context.get('listed') or 0)} listed so far" if continued else ""
    if page.cursor:
        end = f"The SCAN is not finished: “Load more” continues from cursor <code>{int(page.cursor)}</code>."
    else:
        end = "The SCAN is complete."
    return SafeString(  # safe: numbers, fixed text and an escaped query
        f'<p class="hint" id="scan-status"{oob}>\n  {back}\n'
        f"  {len(rows)} key{_plural(len(rows))} from {int(page.steps)} SCAN step{_plural(page.steps)} "
        f"(<code>COUNT</code> adapting up to {int(context.get('scan_count') or 0)}) of {int(page.dbsize)} keys "
        f"in the database{so_far}.\n  {end}\n  Django's cache and session keys are never listed.\n</p>"
    )


# --- one key's page ---------------------------------------------------------------------------


@register.simple_tag(takes_context=True)
def key_meta(context) -> SafeString:
    """The metadata card of the key page (``meta``, ``owner``, ``ttl``, ``expires_at``), built in Python."""
    return render.key_meta(context["meta"], context.get("owner"), context.get("ttl", ""), context.get("expires_at"))


@register.simple_tag(takes_context=True)
def key_owner(context) -> SafeString:
    """The owner card of the key page (``owner``, ``screens``, ``screen_url``, ``related``, ``ids_of``)."""
    return render.key_owner(
        context.get("owner"),
        context.get("screens") or [],
        context.get("screen_url") or "",
        context.get("related") or [],
        context.get("ids_of"),
    )


# --- one key's content, a table body per type, built once per page --------------------------


@register.filter
def field_rows(fields) -> SafeString:
    """A hash's ``(field, value)`` cells as table rows."""
    return SafeString(  # each cell escaped by render.cell
        "".join(f"<tr><td>{render.cell(name)}</td><td>{render.cell(value)}</td></tr>" for name, value in fields)
    )


@register.filter
def member_rows(members) -> SafeString:
    """A set's member cells as table rows."""
    return SafeString("".join(f"<tr><td>{render.cell(member)}</td></tr>" for member in members))


@register.filter
def scored_rows(scored) -> SafeString:
    """A sorted set's ``(rank, member, score)`` as table rows."""
    return SafeString(
        "".join(
            f'<tr><td class="num">{int(rank)}</td><td>{render.cell(member)}</td>'
            f'<td class="num">{escape(score)}</td></tr>'
            for rank, member, score in scored
        )
    )


@register.filter
def item_rows(items) -> SafeString:
    """A list's ``(index, item)`` as table rows."""
    return SafeString(
        "".join(f'<tr><td class="num">{int(index)}</td><td>{render.cell(item)}</td></tr>' for index, item in items)
    )


@register.filter
def entry_rows(entries) -> SafeString:
    """A stream's ``(entry id, [(field, value)])`` as table rows."""
    rows = []
    for entry_id, fields in entries:
        pairs = " · ".join(
            f'<span class="f">{render.cell(name)}</span>=<span class="v">{render.cell(value)}</span>'
            for name, value in fields
        )
        rows.append(
            f'<tr><td class="entry-id"><code>{escape(entry_id)}</code></td><td class="entry-fields">{pairs}</td></tr>'
        )
    return SafeString("".join(rows))


# --- the key browser's own navigation --------------------------------------------------------

KEYS_NAV = (("keys", "Keys", "keybrowser:browse"), ("tree", "Namespaces", "keybrowser:tree"),
            ("registry", "Registry", "keybrowser:registry"), ("orphans", "Orphans", "keybrowser:orphans"))  # fmt: skip
_keys_nav: dict[tuple, SafeString] = {}  # (URLconf, script prefix, current view) -> the nav's HTML


@register.simple_tag
def keys_nav(current: str = "") -> SafeString:
    """The key browser's views, the ``current`` one marked ("keys", "tree", "registry",
    "orphans", "behind"), reversed once per process."""
    cache_key = (get_urlconf(), get_script_prefix(), current)
    html = _keys_nav.get(cache_key)
    if html is None:
        current_mark = ' aria-current="page"'
        links = "".join(
            f'\n  <a href="{escape(reverse(name))}"{current_mark if view == current else ""}>{label}</a>'
            for view, label, name in KEYS_NAV
        )
        behind = '\n  <a href="" aria-current="page">Behind a screen</a>' if current == "behind" else ""
        html = _keys_nav[cache_key] = SafeString(  # fixed labels and the site's own URLs
            f'<nav class="keys-nav" aria-label="Key browser views">{links}{behind}\n</nav>'
        )
    return html
