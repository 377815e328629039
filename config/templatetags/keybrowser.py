"""The key browser's template filter: a key name cut at its ``:`` so the template can let it wrap there."""

from django import template

register = template.Library()


@register.filter
def segments(name) -> list[str]:
    """The parts of a key name (``display.Shown`` or text) between its ``:``, for
    ``{{ name|segments|join:":<wbr>" }}``: each part escaped, a line-break opportunity after each ``:``."""
    return str(name).split(":")
