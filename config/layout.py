"""What the layout (templates/base.html) needs of a request, prepared in Python.

Every page pays for its layout, so the layout asks for one object, ``layout``,
and each of its parts is computed once, when the page first shows it:

- ``urls``: the layout's own links, reversed once per process;
- ``nav``: the sidebar's links, as one piece of HTML. It depends only on the
  section the page belongs to, the user's three permissions that add a link,
  and the site's URLs, never on stored data, so each combination is built
  once per process and then reused.

The permissions come from the user loaded for the request (``roles.RoleBackend``
reads them with the user, in the same query), so the sidebar follows a change
of group or permission on the very next page.
"""

from __future__ import annotations

from functools import cached_property

from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe

from config import roles
from config.urlpaths import paths_of

# The sidebar's links, in order: (section, label, URL name or path, permission needed or None).
# A page's section is its app namespace or the first word of its URL name (see ``section_of_match``);
# Django's admin has no section here, as it does not use this layout.
NAV = (
    ("dashboard", "Dashboard", "dashboard", None),
    ("catalog", "Catalog", "/catalog/products/", None),
    ("school", "School", "/school/courses/", None),
    ("cms", "CMS", "/cms/posts/", None),
    ("orgchart", "Org chart", "/orgchart/employees/", None),
    ("keybrowser", "Key browser", "keybrowser:browse", roles.BROWSE_KEYS),
    ("exchange", "Import / export", "exchange:index", roles.EXCHANGE_DATA),
    (None, "Users and groups", "admin:index", "auth.view_user"),
)
_PERMISSIONS = tuple(dict.fromkeys(needed for *_, needed in NAV if needed))

_built: dict[tuple, SafeString] = {}  # (URLconf, script prefix, section, permissions held) -> the links' HTML


def section_of_match(match) -> str:
    """The sidebar entry of a page: its app namespace, or the first word of its URL name
    (``catalog:list`` belongs to ``catalog``)."""
    if match is None:
        return ""
    return match.namespace or (match.url_name or "").split("_", 1)[0]


def nav_links(section: str, held: frozenset[str]) -> SafeString:
    """The sidebar's list of links for a page of ``section``, to a user holding the permissions ``held``."""
    key = (get_urlconf(), get_script_prefix(), section, held)
    html = _built.get(key)
    if html is None:
        items = []
        for entry, label, target, needed in NAV:
            if needed and needed not in held:
                continue
            url = target if target.startswith("/") else reverse(target)
            current = ' aria-current="page"' if entry == section else ""
            items.append(f'<li><a href="{escape(url)}"{current}>{escape(label)}</a></li>')
        # Fixed labels and the site's own URLs, each escaped: no stored data.
        html = _built[key] = mark_safe("<ul>\n        " + "\n        ".join(items) + "\n      </ul>")
    return html


def layout_urls() -> dict[str, str]:
    """The layout's own links (the brand and the default breadcrumb, signing out)."""
    return paths_of("dashboard", "logout")


class Layout:
    """The layout's parts for one request, each computed when the page first asks for it."""

    def __init__(self, request):
        self.request = request

    @cached_property
    def section(self) -> str:
        return section_of_match(getattr(self.request, "resolver_match", None))

    @cached_property  # the breadcrumb and the top of the page both ask
    def urls(self) -> dict[str, str]:
        return layout_urls()

    @cached_property
    def nav(self) -> SafeString:
        user = self.request.user
        if not user.is_active:
            held = frozenset()
        elif user.is_superuser:  # as has_perm answers for one
            held = frozenset(_PERMISSIONS)
        else:  # has_perm for each, in one pass over the backends
            held = frozenset(user.get_all_permissions()).intersection(_PERMISSIONS)
        return nav_links(self.section, held)


_CSRF_INPUT = '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'


def top_html(context) -> SafeString:
    """The layout from ``<body>`` to the opening of ``<main>``: the htmx CSRF header, the
    brand, and for a signed-in user the menu and the sign-out form.

    One call instead of a dozen template nodes, on every page. It reads what the template
    read (``layout``, ``user``, ``csrf_token`` from the context processors) and prints
    what it printed, each value escaped; a value missing from the context prints as "".
    """
    parts = context.get("layout")
    user = context.get("user")
    token = context.get("csrf_token")
    token = "" if token is None else escape(str(token))
    urls = parts.urls if parts is not None else {}
    html = [
        f"""<body hx-headers='{{"X-CSRFToken": "{token}"}}'>\n  <div class="layout">\n"""
        f'    <nav class="sidebar" aria-label="Main">\n'
        f'      <a class="brand" href="{escape(urls.get("dashboard", ""))}">Redis <span>modeling</span></a>\n'
    ]
    if user is not None and user.is_authenticated:
        csrf_input = _CSRF_INPUT.format(token) if token and token != "NOTPROVIDED" else ""
        html.append(
            '      <input type="checkbox" id="nav-toggle" class="nav-toggle" aria-label="Show the menu">\n'
            '      <label for="nav-toggle" class="nav-toggle-label" aria-hidden="true">Menu</label>\n'
            f"      {parts.nav if parts is not None else ''}\n"
            f'      <form class="signout" method="post" action="{escape(urls.get("logout", ""))}">\n'
            f"        {csrf_input}\n"
            f'        <span class="who">{escape(user.get_username())}</span>\n'
            '        <button type="submit" class="link">Sign out</button>\n'
            "      </form>\n"
        )
    html.append("    </nav>\n    <main>")
    return mark_safe("".join(html))  # noqa: S308  (fixed markup; every value escaped above)


def messages_html(context) -> SafeString:
    """The messages of the request (``messages`` from its context processor), each escaped
    unless it was marked safe, as the template's ``{{ message }}`` did; "" when there are none."""
    messages = context.get("messages")
    if not messages:
        return mark_safe("")
    items = "".join(
        f'<li class="message {conditional_escape(message.tags)}">{conditional_escape(str(message))}</li>'
        for message in messages
    )
    return mark_safe(f'<ul class="messages" role="status">\n        {items}\n      </ul>')  # noqa: S308


def layout(request) -> dict:
    """The context processor: ``layout`` on every page rendered with its request."""
    return {"layout": Layout(request)}
