"""In Chromium: a list worked as a staff user works it: numbered pages, a page past the end, a page
size, select-all and a bulk action, a column sort, and a search in another script."""

from playwright.sync_api import expect

from catalog.documents import Product
from cms import keys as cms_keys
from cms import store as cms_store
from config.activity import Actor
from config.redis import client
from tests.base import BrowserTestCase

T0 = 1_767_600_000.0


class ListInBrowserTest(BrowserTestCase):
    def test_paging_select_all_bulk_publish_sort_and_search(self):
        for n in range(60):
            content = {"title": f"Post {n:02}", "body": "Body.", "author": "ann", "status": "draft"}
            cms_store.create_post(content, actor=Actor("ann"), comment="", at=T0 + n)
        self.sign_in()
        page = self.page

        # Numbered, elided pages: page 4 is one click away, and the pager marks it.
        page.goto(self.url("/cms/posts/"))
        page.locator("nav.pagination").get_by_role("link", name="Page 3", exact=True).click()
        page.wait_for_selector('nav.pagination a[aria-current="page"]:text-is("3")')
        self.assertIn("page=3", page.url)
        self.assertEqual(page.locator("#results tbody tr").first.locator("td").nth(1).inner_text(), "Post 09")

        # A page past the end: the last page, and a message that says so.
        page.goto(self.url("/cms/posts/?page=41"))
        page.wait_for_selector("text=Page 41 is past the end of the list: this is its last page, 3.")
        self.assertIn("page=3", page.url)

        # A page size of 10.
        page.goto(self.url("/cms/posts/"))
        page.select_option("nav.pagination select[name=per]", "10")
        page.locator("nav.pagination").get_by_role("button", name="Show").click()
        expect(page.locator("#results tbody tr")).to_have_count(10)  # expect(): wait_for_function's string needs eval
        self.assertIn("per=10", page.url)

        # Select all on the page, then publish them at once.
        page.get_by_label("Select every post on this page").check()
        self.assertEqual(page.locator("tbody input[name=ids]:checked").count(), 10)
        page.locator("tbody input[name=ids]").first.uncheck()  # the head follows the rows: mixed
        self.assertTrue(page.evaluate("document.getElementById('select-all').indeterminate"))
        page.get_by_label("Select every post on this page").check()
        page.get_by_role("button", name="Publish selected", exact=True).click()
        page.wait_for_selector("text=Published 10 posts")
        self.assertEqual(client().zcard(cms_keys.by_status("published")), 10)
        self.assertIn("per=10", page.url)  # back on the list as it was
        self.screenshot("lists-bulk-publish")

        # Sort by title, then the other way, from the column head.
        page.locator("thead").get_by_role("link", name="Title").click()
        page.wait_for_selector('th[aria-sort="ascending"]')
        self.assertEqual(page.locator("#results tbody tr").first.locator("td").nth(1).inner_text(), "Post 00")
        page.locator("thead").get_by_role("link", name="Title").click()
        page.wait_for_selector('th[aria-sort="descending"]')
        self.assertEqual(page.locator("#results tbody tr").first.locator("td").nth(1).inner_text(), "Post 59")

        # A search of one CJK character finds its product.
        from catalog import store as catalog_store

        product = Product(type="phone", name="📱 هاتف 電話 Phone", brand="", sku="", price=None, tags=[], attrs={})
        catalog_store.create(catalog_store.new_product_id(), product, actor=Actor("staff"))
        page.goto(self.url("/catalog/products/?q=%E9%9B%BB"))  # 電
        page.wait_for_selector("text=📱 هاتف 電話 Phone")
        self.assertIn(">all types · 1<", page.content())
        self.screenshot("lists-cjk-search")
