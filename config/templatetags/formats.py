"""The filters that print money and times read from Redis, in one place each:
``{{ price|money }}``, ``{{ score|score_date }}`` and ``{{ score|score_iso }}`` (for a ``<time datetime>``).

Prices are stored as plain decimal strings ("1532", "867.3"); a screen shows them with the currency
of ``settings.CURRENCY`` and two decimals. Sorted-set scores that are Unix times (seconds, or
milliseconds for the scores that expire holds) show as the UTC date and time they stand for.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.conf import settings

register = template.Library()

DASH = "—"
# Currencies written before the amount with a symbol; any other ISO code follows the amount.
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$"}
CENT = Decimal("0.01")
# A score above this is taken as milliseconds: as seconds it would be past the year 5000.
MILLISECONDS_FROM = 1e11


@register.filter
def money(value, currency: str | None = None) -> str:
    """``1532`` as "$1,532.00" (or "1,532.00 CHF" for a currency without a symbol here); "—"
    for no price, and the text itself for what is not a number, so nothing stored is hidden."""
    if value is None or value == "":
        return DASH
    try:
        amount = Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return str(value)
    if not amount.is_finite():
        return str(value)
    code = (currency or settings.CURRENCY).upper()
    digits = f"{abs(amount):,.2f}"
    sign = "-" if amount < 0 else ""
    symbol = SYMBOLS.get(code)
    return f"{sign}{symbol}{digits}" if symbol else f"{sign}{digits} {code}"


def time_of_score(score) -> datetime | None:
    """The UTC time a score that is a Unix time stands for (seconds, or milliseconds), or None
    for a score that is no time at all (not a number, or out of the calendar's range)."""
    try:
        seconds = float(score)
    except (TypeError, ValueError):
        return None
    if seconds != seconds:  # NaN
        return None
    if abs(seconds) >= MILLISECONDS_FROM:
        seconds /= 1000
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None


@register.filter
def score_date(score) -> str:
    """A time score as "2025-05-30 14:11:40 UTC"; the score itself when it is no time."""
    when = time_of_score(score)
    if when is None:
        return str(score)
    text = f"{when:%Y-%m-%d %H:%M:%S}"
    if when.microsecond:
        text += f".{when.microsecond // 1000:03d}"
    return f"{text} UTC"


@register.filter
def score_iso(score) -> str:
    """The ISO 8601 form of a time score, for ``<time datetime="...">``; "" when it is no time."""
    when = time_of_score(score)
    return when.isoformat() if when else ""
