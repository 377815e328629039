"""``{% sql_twins as twins %}``: the "In SQL" twins of the screen being rendered (``config.sqltwin``)."""

from django import template

from config import sqltwin

register = template.Library()


@register.simple_tag(takes_context=True)
def sql_twins(context) -> dict | None:
    """None off the main screens; else whether a benchmark operation asks this screen's question, and its twins."""
    match = getattr(context.get("request"), "resolver_match", None)
    if match is None or match.view_name not in sqltwin.SCREENS:
        return None
    return {"twins": sqltwin.twins(match.view_name)}
