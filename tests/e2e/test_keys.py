"""In Chromium: from a product page, "keys behind this screen", then its hash and its reviews."""

import re

from django.test import override_settings

from config.redis import raw_client
from tests.base import BrowserTestCase
from tests.keys import product_fixture
from tests.keys.helpers import extra_patterns, load_keys


@override_settings(ROOT_URLCONF="tests.keys.product_fixture")
class KeysBehindProductTest(BrowserTestCase):
    def test_product_page_to_its_hash_and_reviews(self):
        with extra_patterns() as keyspace:
            product_fixture.register(keyspace)
            product_fixture.write(42, "Aurora <Earbuds>", "79.00", {"Great sound": 5, "Too small for me": 2})
            self.sign_in()
            page = self.page
            page.goto(self.url("/catalog/products/42/"))
            page.get_by_text("Aurora <Earbuds>").wait_for()
            self.assertEqual(page.locator("#product-price").inner_text(), "$79.00")
            self.assertIn("Great sound", page.locator("#reviews").inner_text())

            page.get_by_role("link", name="keys behind this screen").click()
            page.wait_for_url(re.compile(r"/keys/behind/\?t="))
            heading = page.locator("h1").inner_text()
            self.assertIn("/catalog/products/42/", heading)
            keys = page.locator("#behind-keys table.keys")
            self.assertEqual(
                sorted(keys.locator("span.keyname").all_inner_texts()),
                ["catalog:product:42", "catalog:product:42:reviews"],
            )
            self.assertIn("HMGET catalog:product:42 name price", page.locator("#behind-commands").inner_text())
            self.screenshot("keys-behind-product")

            keys.get_by_role("link", name="catalog:product:42", exact=True).click()
            page.wait_for_url(re.compile(r"key=catalog%3Aproduct%3A42$"))
            content = page.locator("#content").inner_text()
            self.assertIn("Aurora <Earbuds>", content)
            self.assertIn("79.00", content)
            self.assertIn("Embedded pattern", page.locator("#owner").inner_text())
            self.screenshot("keys-product-hash")

            page.go_back()
            page.locator("#behind-keys").get_by_role("link", name="catalog:product:42:reviews").click()
            page.wait_for_url(re.compile(r"key=catalog%3Aproduct%3A42%3Areviews$"))
            rows = page.locator("#content tbody tr").all_inner_texts()
            self.assertEqual(len(rows), 2)
            self.assertIn("Too small for me", rows[0])  # lowest score first
            self.assertRegex(rows[1], r"Great sound[\s\S]*\b5$")
            self.assertIn("Partial embed", page.locator("#owner").inner_text())
            self.screenshot("keys-product-reviews")


class LoadMoreTest(BrowserTestCase):
    def test_load_more_appends_the_next_scan_page_in_place(self):
        load_keys(300)
        self.sign_in()
        page = self.page
        page.goto(self.url("/keys/?pattern=bulk:"))
        rows = page.locator("#key-rows tr:not(#more-row)")
        first = rows.count()
        self.assertLess(first, 300)
        while page.locator("#more-row a").count():
            before = rows.count()
            page.locator("#more-row a").click()
            page.wait_for_function(f"document.querySelectorAll('#key-rows tr:not(#more-row)').length > {before}")
        names = set(page.locator("#key-rows span.keyname").all_inner_texts())
        self.assertEqual(names, {f"bulk:item:{i}" for i in range(300)})
        self.assertTrue(page.url.endswith("/keys/?pattern=bulk:"))  # loaded in place
        self.assertIn("SCAN a page", page.locator("#redis-panel").text_content())  # the panel describes the last load


class NamespaceCountTest(BrowserTestCase):
    def test_count_to_the_end_scans_chunk_after_chunk_until_exact(self):
        load_keys(25_000, "bulk:item:{}")
        load_keys(5_000, "other:{}")
        self.sign_in()
        page = self.page
        page.goto(self.url("/keys/tree/"))
        self.assertIn("Counts so far", page.locator("#tree-status").inner_text())
        page.locator("#count-all").click()
        page.get_by_text("The SCAN is complete: the counts are exact.").wait_for(timeout=60_000)
        counts = dict(
            zip(page.locator("#tree span.keyname").all_inner_texts(), page.locator("#tree td.num").all_inner_texts())
        )
        self.assertEqual(counts, {"bulk:": "25000", "core:": "2", "other:": "5000"})  # core: the sign-in


class LiveTtlTest(BrowserTestCase):
    def test_the_ttl_counts_down_in_the_page_and_says_when_the_key_expired(self):
        raw_client().set("short:lived", "1", px=2500)
        self.sign_in()
        page = self.page
        page.goto(self.url("/keys/?key=short%3Alived"))
        ttl = page.locator("[data-expires-ms]")
        self.assertRegex(ttl.inner_text(), r"^[12]s$")
        self.assertIn("expires", page.locator("#ttl").inner_text())
        page.wait_for_function("document.querySelector('[data-expires-ms]').textContent === 'expired'", timeout=10_000)
