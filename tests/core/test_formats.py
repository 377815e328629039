"""The money and time filters (config/templatetags/formats.py): what a screen prints."""

from decimal import Decimal

from django.template import Context, Template
from django.test import SimpleTestCase, override_settings


def render(source: str, **context) -> str:
    return Template("{% load formats %}" + source).render(Context(context))


class MoneyTest(SimpleTestCase):
    def test_a_price_has_the_currency_two_decimals_and_thousands_separators(self):
        cases = {
            "1532": "$1,532.00",
            "867.3": "$867.30",
            Decimal("0.5"): "$0.50",
            Decimal("1234567.891"): "$1,234,567.89",
            "0.005": "$0.01",  # half a cent rounds up, as a till does
            -12: "-$12.00",
            0: "$0.00",
        }
        for value, shown in cases.items():
            with self.subTest(value=value):
                self.assertEqual(render("{{ price|money }}", price=value), shown)

    def test_no_price_is_a_dash_and_what_is_no_number_shows_as_it_is_escaped(self):
        self.assertEqual(render("{{ price|money }}", price=None), "—")
        self.assertEqual(render("{{ price|money }}", price=""), "—")
        self.assertEqual(render("{{ price|money }}", price="<b>n/a</b>"), "&lt;b&gt;n/a&lt;/b&gt;")
        self.assertEqual(render("{{ price|money }}", price="NaN"), "NaN")

    @override_settings(CURRENCY="EUR")
    def test_the_currency_is_one_setting(self):
        self.assertEqual(render("{{ price|money }}", price="1532"), "€1,532.00")

    @override_settings(CURRENCY="chf")
    def test_a_currency_without_a_symbol_follows_the_amount_as_its_code(self):
        self.assertEqual(render("{{ price|money }}", price="1532"), "1,532.00 CHF")


class ScoreDateTest(SimpleTestCase):
    def test_a_score_in_seconds_or_milliseconds_is_its_utc_date_and_time(self):
        self.assertEqual(render("{{ s|score_date }}", s="1736658178"), "2025-01-12 05:02:58 UTC")
        self.assertEqual(render("{{ s|score_date }}", s=1736658178.037571), "2025-01-12 05:02:58.037 UTC")
        self.assertEqual(render("{{ s|score_date }}", s="1736658178037"), "2025-01-12 05:02:58.037 UTC")  # ms
        self.assertEqual(render("{{ s|score_iso }}", s="1736658178"), "2025-01-12T05:02:58+00:00")

    def test_a_score_that_is_no_time_shows_as_it_is(self):
        for score in ("inf", "-inf", "nan", "abc", "1e300"):
            with self.subTest(score=score):
                self.assertEqual(render("{{ s|score_date }}", s=score), score)
                self.assertEqual(render("{{ s|score_iso }}", s=score), "")
