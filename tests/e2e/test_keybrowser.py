"""In Chromium: a real catalog product page, "keys behind this screen", its hash, its reviews; paging, TTL."""

import re

from django.test import tag
from playwright.sync_api import expect

from catalog import keys as catalog_keys
from config.keybrowser.display import key_param
from config.redis import raw_client
from tests.base import BrowserTestCase
from tests.catalog.helpers import make_product, review
from tests.keybrowser.helpers import load_keys


class KeysBehindProductTest(BrowserTestCase):
    def test_product_page_to_its_hash_and_reviews(self):
        product_id = make_product("Aurora <Earbuds>", sku="AUR-1", price="79.00")
        ana = review(product_id, 5, author="Ana", comment="Great sound", at=1_700_000_000)
        review(product_id, 2, author="Ben", comment="Too small for me", at=1_700_000_100)
        self.sign_in()
        page = self.page
        page.goto(self.url(f"/catalog/products/{product_id}/"))
        expect(page.locator("h1")).to_have_text("Aurora <Earbuds>")
        shown = page.locator("#product").inner_text()
        self.assertIn("79.00", shown)
        self.assertIn("3.50", page.locator("#average").inner_text())
        expect(page.locator("#recent-reviews .author")).to_have_text(["Ben", "Ana"])

        page.get_by_role("link", name="keys behind this screen").click()
        page.wait_for_url(re.compile(r"/keys/behind/\?t="))
        self.assertIn(f"/catalog/products/{product_id}/", page.locator("h1").inner_text())
        keys = page.locator("#behind-keys table.keys")
        hash_key = catalog_keys.product(product_id)
        self.assertEqual(keys.locator("span.keyname").all_inner_texts(), [hash_key])
        commands = page.locator("#behind-commands").inner_text()
        self.assertIn(f"HGETALL {hash_key}", commands)
        self.screenshot("keys-behind-product")

        # The product hash: the values the page showed, and the embedded copy of the newest reviews.
        keys.get_by_role("link", name=hash_key, exact=True).click()
        page.wait_for_url(re.compile(rf"key={re.escape(key_param(hash_key))}$"))
        fields = dict(
            zip(
                page.locator("#content tbody tr td:first-child").all_inner_texts(),
                page.locator("#content tbody tr td:last-child").all_inner_texts(),
            )
        )
        self.assertEqual(fields["name"], "Aurora <Earbuds>")
        self.assertEqual(fields["price"], "79.00")
        self.assertEqual((fields["num_reviews"], fields["sum_ratings"]), ("2", "7"))
        self.assertIn('"author": "Ana"', fields["recent_reviews"])  # pretty-printed JSON
        owner = page.locator("#owner").inner_text()
        self.assertIn("embedded, polymorphic, partial embed and aggregate patterns", owner)
        self.screenshot("keys-product-hash")

        # Its reviews sorted set, reached from the hash: review ids by time, each linking to its review hash.
        reviews_key = catalog_keys.product_reviews(product_id)
        page.locator("#related").get_by_role("link", name=reviews_key).click()
        page.wait_for_url(re.compile(rf"key={re.escape(key_param(reviews_key))}$"))
        rows = page.locator("#content tbody tr")
        expect(rows).to_have_count(2)
        self.assertRegex(rows.nth(0).inner_text(), rf"^0\s+{ana}\b[\s\S]*1700000000$")
        self.assertIn("referenced one-to-many", page.locator("#owner").inner_text())
        self.screenshot("keys-product-reviews")
        rows.nth(0).locator("a.member-key").click()
        page.wait_for_url(re.compile(rf"key={re.escape(key_param(catalog_keys.review(ana)))}$"))
        review_fields = page.locator("#content").inner_text()
        for value in ("Ana", "5", "Great sound"):
            self.assertIn(value, review_fields)

        # The server's page: its headings go down one level at a time (Lighthouse's heading-order).
        page.goto(self.url("/keys/server/"))
        levels = page.evaluate("() => [...document.querySelectorAll('main :is(h1, h2, h3)')].map(h => +h.tagName[1])")
        self.assertEqual(levels[0], 1)
        self.assertEqual([b for a, b in zip(levels, levels[1:]) if b > a + 1], [])

        # A search that matches nothing among more keys than one SCAN page, on a phone: the table scans
        # on to its count alone, with no column heads squeezed over nothing.
        load_keys(5000, "filler:{}")
        page.set_viewport_size({"width": 390, "height": 900})
        page.goto(self.url("/keys/?pattern=no-such-key:"))
        expect(page.locator("#none-row")).to_contain_text("0 keys match")
        expect(page.locator("#key-table thead")).to_be_hidden()


@tag("cluster")
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
            # expect() rather than wait_for_function, which evaluates a string: the CSP forbids eval.
            expect(page.locator(f"#key-rows tr:not(#more-row) >> nth={before}")).to_be_attached()
        names = set(page.locator("#key-rows span.keyname").all_inner_texts())
        self.assertEqual(names, {f"bulk:item:{i}" for i in range(300)})
        self.assertTrue(page.url.endswith("/keys/?pattern=bulk:"))  # loaded in place
        panel = page.locator("#redis-panel")  # swapped in with the last load: it describes that load
        panel.locator("summary").click(position={"x": 6, "y": 10})
        expect(panel.locator(".round-trips")).to_contain_text("SCAN a page")


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
        self.sign_in()  # first: on a busy machine signing in can take longer than the key lives
        raw_client().set("short:lived", "1", px=8000)
        page = self.page
        page.goto(self.url("/keys/?key=short%3Alived"))
        ttl = page.locator("[data-expires-ms]")
        self.assertRegex(ttl.inner_text(), r"^[1-8]s$")
        self.assertIn("expires", page.locator("#ttl").inner_text())
        first = ttl.inner_text()
        expect(ttl).not_to_have_text(first, timeout=10_000)  # it counts down in the page
        expect(ttl).to_have_text("expired", timeout=20_000)


class OrphansFillByThemselvesTest(BrowserTestCase):
    def test_the_orphans_table_fills_by_itself_with_the_scan_progress(self):
        load_keys(12_000, "core:{{signins}}:window:user:{}:127.0.0.1")  # owned by a registered pattern
        load_keys(120, "stray:{}")  # orphans, sparse among them
        self.sign_in()
        page = self.page
        page.goto(self.url("/keys/orphans/"))
        first = page.locator("#scan-status").inner_text()
        page.get_by_text("The SCAN is complete.").wait_for(timeout=60_000)  # no click on the way
        names = set(page.locator("#key-rows span.keyname").all_inner_texts())
        self.assertEqual(names, {f"stray:{i}" for i in range(120)})
        status = page.locator("#scan-status").inner_text()
        self.assertNotEqual(status, first)
        self.assertRegex(status, r"120 orphans found among (1212\d) of about \1 keys examined")  # + sign-in keys
        self.assertEqual(page.locator("#more-row").count(), 0)
