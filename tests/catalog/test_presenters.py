"""The list and product pages' parts built once in Python give what the templates and tags they
replace give, and the unfiltered list builds no form."""

from pathlib import Path
from unittest import mock

from django.template.loader import render_to_string
from django.test import RequestFactory, SimpleTestCase
from django.urls import reverse

from catalog import presenters, views
from catalog.documents import average
from catalog.forms import ProductFilterForm
from catalog.templatetags.catalog_tags import tag_query, type_query
from config.listing import list_state
from tests.base import RedisTestCase
from tests.catalog.helpers import make_product


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

    def test_each_tag_chip_links_where_tag_query_does(self):
        cloud = [("wired", 3), ("refurbished", 2), ("new-tag", 1), ("a&b", 1)]
        for query in self.STATES:
            state = state_of(query)
            html = presenters.tag_chips(state, cloud, ())
            for tag, _ in cloud:
                self.assertIn(f'href="{presenters.escape(tag_query(state, tag))}"', html, (query, tag))

    def test_each_type_chip_links_where_type_query_does(self):
        from catalog import types

        for query in self.STATES:
            state = state_of(query)
            html = presenters.type_chips(state, [(kind, 1) for kind in types.TYPES.values()], "", 5)
            for slug in ("", *types.TYPES):
                self.assertIn(f'href="{presenters.escape(type_query(state, slug))}"', html, (query, slug))


class RatingTextTest(SimpleTestCase):
    def test_the_integer_rounding_is_the_float_rounding(self):
        for count in range(0, 90):
            for total in range(0, 5 * count + 1):
                self.assertEqual(
                    presenters.rating_of(count, total), presenters.rating_text(average(count, total)), (count, total)
                )


class OnceBuiltPartsTest(SimpleTestCase):
    def test_the_search_box_is_the_include_with_the_value_escaped(self):
        for value in ("", "quiet buds", "<b>\"x\"</b> & 'y'"):
            context = {"name": "q", "id": "id_q", "url": "/catalog/products/suggest/", "label": "Search",
                       "value": value, "placeholder": "any part of a name, or a SKU", "mode": "go"}  # fmt: skip
            expected = render_to_string("includes/autocomplete.html", context)
            self.assertEqual(presenters.search_box(value, "/catalog/products/suggest/"), expected)

    def test_the_empty_filter_fields_are_those_of_a_form_bound_to_nothing_chosen(self):
        bound = ProductFilterForm({"q": "", "type": "", "tags_all": ""})
        bound.is_valid()
        self.assertEqual(presenters.empty_filter_fields(), presenters.filter_fields(bound))

    def test_the_paths_are_reversed_once_and_are_what_reverse_gives(self):
        for name in views._NAMED:
            self.assertEqual(views._paths()[name.rpartition(":")[2]], reverse(name))
        self.assertEqual(views._detail_url(42), reverse("catalog:product_detail", args=[42]))
        with mock.patch("config.urlpaths.reverse") as reversing:
            views._paths()
        reversing.assert_not_called()

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


# The product page's cards as the template wrote them before ``presenters.product_sections`` built them.
SECTIONS_TEMPLATE = Path(__file__).parent / "data" / "product_sections_template.html"


class ProductSectionsTest(SimpleTestCase):
    def test_the_cards_are_the_markup_the_template_wrote(self):
        from django.template import Context, Template

        from catalog.documents import Product

        template = Template(SECTIONS_TEMPLATE.read_text().rstrip("\n"))
        products = [
            Product(
                type="earbuds",
                name="<Buds> & co",
                brand="",
                sku="S-1",
                image="https://img.example.com/a.jpg",
                description="one\r\ntwo\rthree\n<four>",
                model="M&1",
                images=["https://x.example/1.jpg"],
                num_reviews=1,
                sum_ratings=4,
                attrs={"battery_life": "3"},
            ),  # fmt: skip
            Product(type="", name="Plain", brand="B", sku="", image="javascript:alert(1)", weight="2 kg"),
            Product(
                type="nonesuch",
                name="Odd",
                brand="O",
                sku="O-1",
                num_reviews=3,
                sum_ratings=10,
                manufacturer="<M>",
                dimensions='1"x2"',
                videos=["https://v.example/1", "ftp://no"],
            ),  # fmt: skip
            Product(type="game_console", name="Box", brand="X", sku="X-1"),
        ]
        for product in products:
            parts = {
                "price": presenters.price_text(product.price),
                "average": presenters.rating_of(product.num_reviews, product.sum_ratings),
                "tags": presenters.tag_links(["a&b", "c"], "/catalog/products/"),
                "type_fields": presenters.type_field_items(product.type_fields),
                "images": presenters.media_links(product.images, "image"),
                "videos": presenters.media_links(product.videos, "video"),
            }
            expected = template.render(Context({"product": product, **parts}))
            self.assertEqual(presenters.product_sections(product, **parts), expected, product.name)
