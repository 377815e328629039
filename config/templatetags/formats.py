"""The filters that print money and time scores (``config.formats``): ``{{ price|money }}``,
``{{ score|score_date }}`` and ``{{ score|score_iso }}`` (for a ``<time datetime>``)."""

from django import template

from config import formats

register = template.Library()


@register.filter
def money(value) -> str:
    """A price with the site's currency (``settings.CURRENCY``) and two decimals: "$1,532.00"."""
    return formats.money(value)


@register.filter
def score_date(score) -> str:
    """A sorted-set score that is a Unix time, as its UTC date and time."""
    return formats.score_date(score)


@register.filter
def score_iso(score) -> str:
    """The ISO 8601 form of a time score, for ``<time datetime="...">``; "" when it is no time."""
    when = formats.time_of_score(score)
    return when.isoformat() if when else ""
