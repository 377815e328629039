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
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from config import roles

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
_urls: dict[tuple, dict[str, str]] = {}  # (URLconf, script prefix) -> the layout's own links


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
    """The layout's own links (the brand and the default breadcrumb, signing out), reversed once."""
    key = (get_urlconf(), get_script_prefix())
    urls = _urls.get(key)
    if urls is None:
        urls = _urls[key] = {"dashboard": reverse("dashboard"), "logout": reverse("logout")}
    return urls


class Layout:
    """The layout's parts for one request, each computed when the page first asks for it."""

    def __init__(self, request):
        self.request = request

    @cached_property
    def section(self) -> str:
        return section_of_match(getattr(self.request, "resolver_match", None))

    @property
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


def layout(request) -> dict:
    """The context processor: ``layout`` on every page rendered with its request."""
    return {"layout": Layout(request)}
