"""Search that finds: any part of a name in any script, one or two characters included, and the type
chips' counts, "all types" too, following the search."""

from catalog import store
from config.activity import Actor
from config.invariants import violations
from tests.base import RedisTestCase
from tests.catalog.helpers import make_product

HTMX = {"HX-Request": "true"}  # what htmx sends with every request


class AnyPartTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.phone = make_product("📱 هاتف 電話 Phone", type="phone", attrs={})
        self.buds = make_product("Quiet Buds", attrs={})
        self.box = make_product("Box X2", type="game_console", attrs={})

    def test_cjk_arabic_and_short_queries_find_their_record_anywhere_in_the_name(self):
        for q in ("電話", "電", "話", "هاتف", "ات", "X2", "x", "2", "uds", "et"):
            with self.subTest(q=q):
                names = [row.name for row in self.client.get("/catalog/products/", {"q": q}).context["result"].rows]
                expected = {
                    "電話": ["📱 هاتف 電話 Phone"], "電": ["📱 هاتف 電話 Phone"], "話": ["📱 هاتف 電話 Phone"],
                    "هاتف": ["📱 هاتف 電話 Phone"], "ات": ["📱 هاتف 電話 Phone"], "X2": ["Box X2"],
                    "x": ["Box X2"], "2": ["Box X2"], "uds": ["Quiet Buds"], "et": ["Quiet Buds"],
                }[q]  # fmt: skip
                self.assertEqual(names, expected)
        self.assertEqual(store.suggest("電話"), [(str(self.phone), "📱 هاتف 電話 Phone")])

    def test_every_type_chip_and_all_types_count_what_the_search_finds(self):
        response = self.client.get("/catalog/products/", {"q": "x"})
        self.assertContains(response, ">all types · 1</a>")  # the search's one match, not the catalog's three
        counts = {chip["value"]: chip["count"] for chip in response.context["type_chips"]}
        self.assertEqual((counts[""], counts["game_console"], counts["phone"]), (1, 1, 0))
        unsearched = self.client.get("/catalog/products/").content.decode()
        self.assertIn(">all types · 3</a>", unsearched)


class SuggestionsTest(RedisTestCase):
    def test_a_cjk_word_is_suggested_and_more_matches_than_shown_are_said(self):
        phone = make_product("📱 هاتف 電話 Phone", type="phone", attrs={})
        response = self.client.get("/catalog/products/suggest/", {"q": "電"}, headers=HTMX)
        self.assertContains(response, f'data-href="/catalog/products/{phone}/"')
        for n in range(10):
            make_product(f"Phone case {n}", attrs={})
        many = self.client.get("/catalog/products/suggest/", {"q": "phone"}, headers=HTMX)
        self.assertEqual(many.content.decode().count('role="option"'), 8)
        self.assertContains(many, "The first 8 shown: type more of the name to find the others.")
        few = self.client.get("/catalog/products/suggest/", {"q": "case 3"}, headers=HTMX)
        self.assertNotContains(few, "The first 8 shown")


class SkuDigitsTest(RedisTestCase):
    def test_an_skus_digits_find_its_product_and_an_sku_change_moves_it(self):
        box = make_product("Quiet Box", sku="QB-44718", attrs={})
        make_product("Loud Box", sku="LB-90210", attrs={})
        for q in ("44718", "4471", "718", "18", "qb-44718", "box 447"):
            with self.subTest(q=q):
                names = [row.name for row in self.client.get("/catalog/products/", {"q": q}).context["result"].rows]
                self.assertEqual(names, ["Quiet Box"])
        product = store.get(box)
        product.sku = "QB-55555"
        store.update(box, product, product.rev, actor=Actor("staff"))
        self.assertEqual(self.client.get("/catalog/products/", {"q": "44718"}).context["result"].rows, [])
        self.assertEqual(len(self.client.get("/catalog/products/", {"q": "55555"}).context["result"].rows), 1)
        self.assertEqual(violations(["catalog"]), [])
