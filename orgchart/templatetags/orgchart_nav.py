"""The org chart's sub-navigation, built in Python once per script prefix and current screen."""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_LINKS = (
    ("orgchart:employee_list", "Employees", lambda current: "employee" in current),
    ("orgchart:tree", "Org tree", lambda current: current == "tree"),
    ("orgchart:path", "Path finder", lambda current: current == "path"),
    ("orgchart:location_list", "Locations", lambda current: "location" in current),
)


@lru_cache(maxsize=64)
def _nav(prefix: str, current: str) -> SafeString:
    marked = ' aria-current="page"'
    links = "".join(
        f'\n  <a href="{reverse(name)}"{marked if is_current(current) else ""}>{label}</a>'
        for name, label, is_current in _LINKS
    )
    return mark_safe(f'<nav class="subnav" aria-label="Org chart">{links}\n</nav>')  # noqa: S308  (fixed words and URLs)


@register.simple_tag(takes_context=True)
def orgchart_nav(context) -> SafeString:
    """The four org chart screens, the current one marked (what ``orgchart/_nav.html`` rendered)."""
    match = getattr(context.get("request"), "resolver_match", None)
    return _nav(get_script_prefix(), (match.url_name if match else "") or "")
