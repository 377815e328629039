"""The org chart's sub-navigation."""

from __future__ import annotations

from django import template

register = template.Library()


@register.inclusion_tag("orgchart/nav.html", takes_context=True)
def orgchart_nav(context) -> dict:
    """The four org chart screens, the current one marked (by the name of the page's URL)."""
    match = getattr(context.get("request"), "resolver_match", None)
    return {"current": (match.url_name if match else "") or ""}
