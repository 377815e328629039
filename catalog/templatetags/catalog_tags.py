"""Query strings for the product list's chips, keeping search, sort and other filters."""

from django import template

from catalog.documents import split_tags

register = template.Library()


@register.filter
def type_query(state, slug):
    """The list filtered by one type (all types for "")."""
    return state.query(type=slug, page=1)


@register.filter
def tag_query(state, tag):
    """The list with ``tag`` added to the all-of tags."""
    chosen = split_tags(state.filters.get("tags_all", ""))
    return state.query(tags_all=",".join(dict.fromkeys([*chosen, tag])), page=1)
