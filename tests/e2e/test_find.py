"""Finding products in Chromium: the search box suggests as you type and the keyboard picks one;
bulk delete asks on a page that lists the ticked products, then says what went."""

from playwright.sync_api import expect

from catalog import keys
from config.redis import client
from tests.base import BrowserTestCase
from tests.catalog.helpers import make_product


class FindBrowserTest(BrowserTestCase):
    def setUp(self):
        super().setUp()
        self.errors = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def test_typing_suggests_and_the_keyboard_picks_a_product(self):
        phone = make_product("Smartphone X", type="phone", attrs={})
        make_product("Phonograph One", type="appliance", attrs={})
        make_product("Pocket Phone Mini", type="phone", attrs={})
        self.sign_in()
        page = self.page
        page.goto(self.url("/catalog/products/"))
        box = page.locator("#id_q")
        box.press_sequentially("phone", delay=40)
        options = page.locator("#id_q-listbox [role=option]")
        expect(options).to_have_text(["Pocket Phone Mini", "Smartphone X"])  # in name order; the gramophone is not
        expect(box).to_have_attribute("aria-expanded", "true")
        box.press("ArrowDown")
        box.press("ArrowDown")
        expect(box).to_have_attribute("aria-activedescendant", "id_q-listbox-2")
        expect(options.nth(1)).to_have_attribute("aria-selected", "true")
        self.screenshot("find-autocomplete")
        box.press("Enter")
        expect(page.locator("h1")).to_have_text("Smartphone X")
        self.assertTrue(page.url.endswith(f"/catalog/products/{phone}/"))

        page.goto(self.url("/catalog/products/"))
        box = page.locator("#id_q")
        box.press_sequentially("pho", delay=40)
        expect(page.locator("#id_q-listbox [role=option]")).to_have_count(3)
        box.press("Escape")
        expect(page.locator("#id_q-listbox")).to_be_hidden()
        box.press("Enter")  # no option chosen: the filter form searches
        expect(page.locator("tbody tr")).to_have_count(3)
        self.assertIn("q=pho", page.url)
        self.assertEqual(self.errors, [])

    def test_bulk_delete_lists_the_ticked_products_then_deletes_them(self):
        a = make_product("Alpha Buds", tags=["wireless"])
        b = make_product("Beta Buds")
        c = make_product("Gamma Buds")
        self.sign_in()
        page = self.page
        page.goto(self.url("/catalog/products/"))
        page.check(f"#select-{a}")
        page.check(f"#select-{b}")
        page.click("text=Delete selected…")
        expect(page.locator("h1")).to_have_text("Delete 2 products?")
        expect(page.locator(".bulk-list li")).to_have_text(["Beta Buds", "Alpha Buds"])  # the list's order
        self.screenshot("find-bulk-delete")
        page.click("text=Yes, delete 2 products")
        expect(page.locator(".messages")).to_contain_text(
            "Deleted 2 products with their reviews: “Beta Buds”, “Alpha Buds”."
        )
        expect(page.locator("tbody tr")).to_have_count(1)
        self.assertFalse(client().exists(keys.product(a), keys.product(b)))
        self.assertTrue(client().exists(keys.product(c)))
        self.assertEqual(self.errors, [])
