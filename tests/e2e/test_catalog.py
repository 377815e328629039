"""The catalog in Chromium: add earbuds through the type chooser, review them, filter by tags, sort by rating,
list one type with its own fields."""

from playwright.sync_api import expect

from catalog import keys
from config.redis import client
from tests.base import BrowserTestCase
from tests.catalog.helpers import make_product, review


class CatalogBrowserTest(BrowserTestCase):
    def test_add_review_filter_and_sort(self):
        other = make_product("Vertex Station", type="game_console", sku="VX-1", tags=["gaming", "wireless"])
        review(other, 3)
        self.sign_in()
        page = self.page

        # 1. Add earbuds through the type chooser.
        page.goto(self.url("/catalog/products/add/"))
        page.click("a[data-type=earbuds]")
        expect(page.locator("#type-fields")).to_have_attribute("data-type", "earbuds")
        expect(page.locator("input[name=hdmi_ports]")).to_have_count(0)
        page.fill("input[name=name]", "Quietude Pods")
        page.fill("input[name=brand]", "Quietude")
        page.fill("input[name=sku]", "QP-100")
        page.fill("input[name=price]", "149.00")
        page.fill("input[name=battery_life]", "28")
        page.select_option("select[name=connection_type]", "bluetooth")
        page.select_option("select[name=fit]", "in-ear")
        page.fill("input[name=tags]", "wireless, noise-cancelling")
        page.click("form.product-form button[type=submit]")
        expect(page.locator("h1")).to_have_text("Quietude Pods")
        expect(page.locator("[data-field=battery_life]")).to_contain_text("28 hours")
        expect(page.locator("#average")).to_contain_text("—")
        self.screenshot("catalog-added")

        # 2. Add reviews: the average and the recent reviews change.
        for author, rating in (("Ana", "5"), ("Ben", "2"), ("Chen", "5"), ("Dara", "4")):
            page.fill("form.review-form input[name=author]", author)
            page.check(f"form.review-form input[name=rating][value='{rating}']")
            page.click("form.review-form button[type=submit]")
            expect(page.locator(".messages")).to_contain_text("Your review of")
        expect(page.locator("#average")).to_contain_text("4.00")
        expect(page.locator("#recent-reviews .author")).to_have_text(["Dara", "Chen", "Ben"])
        page.click("#all-reviews-link")
        expect(page.locator("#all-reviews .review")).to_have_count(4)
        self.screenshot("catalog-reviews")
        product_id = int(client().hget(keys.skus(), "QP-100"))
        self.assertEqual(client().hget(keys.product(product_id), "sum_ratings"), "16")

        # 3. Filter by tags.
        page.goto(self.url("/catalog/products/"))
        expect(page.locator("#results tbody tr")).to_have_count(2)
        page.fill("input[name=tags_all]", "wireless, noise-cancelling")
        page.click("form.filters button[type=submit]")
        expect(page.locator("#results tbody tr")).to_have_count(1)
        expect(page.locator("#results tbody tr td:not(.select)").first).to_have_text("Quietude Pods")
        self.assertIn("tags_all=wireless", page.url)
        page.fill("input[name=tags_all]", "")
        page.fill("input[name=tags_none]", "noise-cancelling")
        page.click("form.filters button[type=submit]")
        expect(page.locator("#results tbody tr td:not(.select)").first).to_have_text("Vertex Station")
        page.fill("input[name=tags_none]", "")
        page.click("form.filters button[type=submit]")
        expect(page.locator("#results tbody tr")).to_have_count(2)

        # 4. Sort by rating: ascending, then descending.
        page.click("a[data-sort=rating]")
        expect(page.locator("#results tbody tr td:nth-child(2)")).to_have_text(["Vertex Station", "Quietude Pods"])
        page.click("a[data-sort=rating]")
        expect(page.locator("#results tbody tr td:nth-child(2)")).to_have_text(["Quietude Pods", "Vertex Station"])
        expect(page.locator("#results tbody tr td.rating")).to_have_text(["4.00", "3.00"])
        self.assertIn("o=-rating", page.url)
        self.screenshot("catalog-sorted")

        # 5. One type, newest first: its own fields become columns.
        page.goto(self.url("/catalog/products/"))
        expect(page.locator("th[data-type-field]")).to_have_count(0)
        page.click("nav.chips a[data-type=earbuds]")
        expect(page.locator("th[data-type-field]")).to_have_text(["Battery life (hours)", "Connection type", "Fit"])
        expect(page.locator("#results tbody tr td:nth-child(2)")).to_have_text(["Quietude Pods"])
        expect(page.locator("td[data-field=battery_life]")).to_have_text("28")
        expect(page.locator("td[data-field=fit]")).to_have_text("in-ear")
        self.assertIn("type=earbuds", page.url)
        self.screenshot("catalog-type-columns")

    def test_changing_the_type_on_edit_swaps_the_section_and_drops_the_old_fields(self):
        product_id = make_product("Shape Shifter", tags=["wireless"])
        self.sign_in()
        page = self.page
        page.goto(self.url(f"/catalog/products/{product_id}/edit/"))
        expect(page.locator("input[name=battery_life]")).to_have_value("24")
        page.select_option("#switch-type", "game_console")
        expect(page.locator("#type-fields")).to_have_attribute("data-type", "game_console")
        expect(page.locator("input[name=battery_life]")).to_have_count(0)
        page.select_option("select[name=storage_type]", "ssd")
        page.fill("input[name=usb_ports]", "4")
        page.fill("input[name=hdmi_ports]", "2")
        page.fill("input[name=gpu]", "RDNA 3")
        self.screenshot("catalog-edit-type")
        page.click("form.product-form button[type=submit]")
        expect(page.locator(".messages")).to_contain_text("Saved")
        expect(page.locator("[data-field=gpu]")).to_have_text("RDNA 3")
        expect(page.locator("[data-field=type]")).to_have_text("game console")
        stored = client().hgetall(keys.product(product_id))
        self.assertNotIn("battery_life", stored)
        self.assertEqual(stored["usb_ports"], "4")
