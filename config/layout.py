"""What the layout (templates/base.html) needs of a request beside what Django's context
processors give: the sidebar section the page belongs to, whether the user may write there,
their role, the layout's own links, and the eviction banner."""

from __future__ import annotations

from functools import cached_property

from django.urls import reverse

from config import roles, store


def section_of_match(match) -> str:
    """The sidebar entry of a page: its app namespace, or the first word of its URL name
    (``catalog:list`` belongs to ``catalog``); Django's admin has none, as it does not use this layout."""
    if match is None:
        return ""
    return match.namespace or (match.url_name or "").split("_", 1)[0]


class Layout:
    """The layout's parts for one request, each worked out when the page first asks for it."""

    def __init__(self, request):
        self.request = request

    @cached_property
    def section(self) -> str:
        return section_of_match(getattr(self.request, "resolver_match", None))

    @cached_property
    def can_write(self) -> bool:
        """Whether the user may write in the page's app: every write control is shown by it."""
        return roles.may_write(self.request.user, self.section)

    @cached_property
    def role(self) -> str:
        """The user's role as the sidebar names it."""
        return roles.ROLE_LABELS[roles.role_of(self.request.user)]

    @cached_property
    def urls(self) -> dict[str, str]:
        """The brand's and the default breadcrumb's link, and signing out."""
        return {"dashboard": reverse("dashboard"), "logout": reverse("logout")}

    @cached_property
    def evicting(self) -> str:
        """Redis's eviction policy when it can evict keys, for the banner; read at most every
        ``EVICTION_CHECK_SECONDS`` per process. A Redis that cannot answer leaves the banner out."""
        try:
            return store.evicting_policy() or ""
        except Exception:
            return ""


def layout(request) -> dict:
    """The context processor: ``layout`` on every page rendered with its request."""
    return {"layout": Layout(request)}
