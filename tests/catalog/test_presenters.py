"""What the list and product pages show from the values ``catalog.presenters`` prepares: chips and
rows that link where the URLconf and the list state say, stored text escaped, and no filter form
built for an unfiltered list."""

from decimal import ROUND_HALF_UP, Decimal
from unittest import mock

from django.test import RequestFactory, SimpleTestCase
from django.urls import reverse

from catalog import presenters, store, types, views
from catalog.documents import Product, average
from catalog.forms import ProductFilterForm
from config.listing import list_state
from tests.base import RedisTestCase
from tests.catalog.helpers import TESTER, make_product, review


def state_of(query: str):
    request = RequestFactory().get("/catalog/products/" + query)
    return views.PRODUCTS.read(request)


class ChipLinkTest(SimpleTestCase):
    STATES = (
        "",
        "?o=-rating&page=3",
        "?q=a%26b+c%00d&type=phone&tags_all=wired,refurbished&tags_any=x&o=name",
        "?tags_all=%00,wired",
        "?q=%2500",
    )

    def test_a_tag_chip_adds_its_tag_to_the_chosen_ones_or_drops_it(self):
        cloud = [("wired", 3), ("refurbished", 2), ("new-tag", 1), ("a&b", 1)]
        for query in self.STATES:
            state = state_of(query)
            chosen = [t for t in state.filters.get("tags_all", "").split(",") if t.strip()]
            for chip in presenters.tag_chips(state, cloud, ()):
                tag = chip["value"]
                kept = [t for t in chosen if t != tag] if tag in chosen else [*chosen, tag]
                self.assertEqual(chip["query"], state.query(tags_all=",".join(kept), page=1), (query, tag))

    def test_a_type_chip_keeps_the_rest_of_the_query(self):
        for query in self.STATES:
            state = state_of(query)
            chips = presenters.type_chips(state, [(kind, 1) for kind in types.TYPES.values()], "", 5)
            self.assertEqual([c["value"] for c in chips], ["", *types.TYPES])
            for chip in chips:
                self.assertEqual(chip["query"], state.query(type=chip["value"], page=1), (query, chip["value"]))


def rating_text(average: float | None) -> str:
    """An average as ``|floatformat:2`` shows it (halves rounded up): "—" with no review."""
    if average is None:
        return presenters.DASH
    return str(Decimal(repr(average)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


class RatingTextTest(SimpleTestCase):
    def test_the_integer_rounding_is_the_float_rounding(self):
        for count in range(0, 90):
            for total in range(0, 5 * count + 1):
                self.assertEqual(presenters.rating_of(count, total), rating_text(average(count, total)), (count, total))


class ListStateTest(SimpleTestCase):
    def test_list_state_reads_the_same_without_the_form(self):
        for query in ("?o=-rating&page=2", "?o=bogus"):
            request = RequestFactory().get("/catalog/products/" + query)
            plain, full = views.UNFILTERED.read(request), views.PRODUCTS.read(request)
            self.assertEqual((plain.order, plain.page, plain.filters), (full.order, full.page, full.filters))
            self.assertEqual(plain, list_state(request.GET, views.PRODUCTS.sorts, "-created", views.PRODUCTS.filters))


class UnfilteredListTest(RedisTestCase):
    def test_no_filter_builds_no_form_and_a_filter_builds_one(self):
        make_product("Alpha Buds", tags=["wireless"])
        presenters.empty_filter_fields()  # rendered once a process, from a form bound to nothing
        with mock.patch.object(ProductFilterForm, "full_clean", autospec=True) as cleaning:
            cleaning.side_effect = lambda form: None
            self.client.get("/catalog/products/?o=-rating&q=&type=")
        cleaning.assert_not_called()
        with mock.patch.object(
            ProductFilterForm, "full_clean", autospec=True, side_effect=ProductFilterForm.full_clean
        ) as cleaning:
            response = self.client.get("/catalog/products/?type=earbuds")
        self.assertTrue(cleaning.called)
        self.assertContains(response, "Alpha Buds")
        plain = self.client.get("/catalog/products/?o=-rating").content.decode()
        bound = self.client.get("/catalog/products/?o=-rating&q=&tags_none=").content.decode()
        cut = lambda page: page[page.index('<form class="card filters"') : page.index("</form>")]  # noqa: E731
        self.assertEqual(cut(plain), cut(bound))


NASTY = "<b>&\"'</b>"
ESCAPED = "&lt;b&gt;&amp;&quot;&#x27;&lt;/b&gt;"


class PagesTest(RedisTestCase):
    def test_each_row_links_to_its_product_and_prints_its_values_escaped(self):
        first = make_product("Alpha " + NASTY, tags=["wireless"], attrs={"battery_life": "30"})
        second = make_product("Beta Buds", price="")
        review(first, 4)
        review(first, 5)
        page = self.client.get("/catalog/products/?type=earbuds").content.decode()
        for pk in (first, second):
            self.assertIn(f'<a href="{reverse("catalog:product_detail", args=[pk])}">', page)
        self.assertIn(f"Alpha {ESCAPED}</a>", page)
        self.assertNotIn(NASTY, page)
        self.assertIn('<td class="num" data-field="battery_life">30</td>', page)
        self.assertIn('<th class="num" data-type-field="battery_life">Battery life (hours)</th>', page)
        self.assertIn('<td class="num rating">4.50</td>', page)
        self.assertIn('<span class="tag">wireless</span>', page)
        self.assertIn('<td class="num price">$99.00</td>', page)
        self.assertIn('<td class="num price">—</td>', page)  # the unpriced one
        self.assertIn('data-type="earbuds" aria-current="true">earbuds · 2</a>', page)

    def test_the_product_page_prints_stored_text_escaped_and_links_only_web_addresses(self):
        product = Product(
            type="earbuds", name=NASTY, brand="", sku="S-1", image="javascript:alert(1)",
            description="one\r\ntwo\rthree\n<four>", model="M&1", price=Decimal("5.50"), tags=["a-b", "c"],
            images=["https://x.example/1.jpg", "ftp://no"], attrs={"battery_life": "3"},
        )  # fmt: skip
        pk = store.new_product_id()
        store.create(pk, product, actor=TESTER)
        review(pk, 4, author=NASTY, comment=NASTY)
        page = self.client.get(reverse("catalog:product_detail", args=[pk])).content.decode()
        self.assertNotIn(NASTY, page)
        self.assertIn(f"<h1>{ESCAPED}</h1>", page)
        self.assertIn('<p class="mono unlinked" data-field="image">javascript:alert(1)</p>', page)
        self.assertIn("<p>one<br>two<br>three<br>&lt;four&gt;</p>", page)
        self.assertIn("<dt>Model</dt><dd>M&amp;1</dd>", page)
        self.assertIn("<dt>Brand</dt><dd>—</dd>", page)
        products = reverse("catalog:product_list")
        tags = f'<a class="tag" href="{products}?tags_all=a-b">a-b</a> <a class="tag" href="{products}?tags_all=c">'
        self.assertIn(tags, page)
        self.assertIn('<dd data-field="battery_life">3 hours</dd>', page)
        self.assertIn('<a href="https://x.example/1.jpg" rel="noopener nofollow">image 1</a> ', page)
        self.assertIn('<span class="mono unlinked">ftp://no</span>', page)
        self.assertIn("<dt>Videos (0/3)</dt><dd>—</dd>", page)
        self.assertIn(f'<span class="author">{ESCAPED}</span>', page)
        review_id = store.review_page(pk, 0, 1).reviews[0].id
        self.assertIn(f'href="{reverse("catalog:review_delete", args=[pk, review_id])}">delete</a>', page)
        for name in ("product_edit", "product_delete", "review_add", "review_list"):
            self.assertIn(f'"{reverse(f"catalog:{name}", args=[pk])}"', page, name)
