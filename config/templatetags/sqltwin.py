"""``{% sql_twins as twins %}``: the "In SQL" twins of the screen being rendered (``config.sqltwin``)."""

from django import template

from config import sqltwin

register = template.Library()


@register.simple_tag(takes_context=True)
def sql_twins(context) -> list[sqltwin.Twin]:
    """The twins of this screen: none off the main screens."""
    match = getattr(context.get("request"), "resolver_match", None)
    return sqltwin.twins(match.view_name) if match else []


@register.simple_tag
def sql_twins_version() -> tuple[str, int]:
    """What the rendered twins vary on besides the screen (``sqltwin.results_version``)."""
    return sqltwin.results_version()
