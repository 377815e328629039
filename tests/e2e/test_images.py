"""Product images come from the dashboard itself; one that fails shows the placeholder."""

from playwright.sync_api import expect

from catalog import store
from catalog.documents import Product
from tests.base import BrowserTestCase
from tests.catalog.helpers import EARBUDS, TESTER


def product_with_image(name: str, image: str) -> int:
    product_id = store.new_product_id()
    product = Product(type="earbuds", name=name, brand="B", sku=name.upper(), image=image, attrs=dict(EARBUDS))
    store.create(product_id, product, actor=TESTER)
    return product_id


class ProductImageTest(BrowserTestCase):
    def test_a_served_image_shows_and_a_failed_one_gives_way_to_the_placeholder(self):
        shown = product_with_image("Shown", "/static/img/products/earbuds.svg")
        broken = product_with_image("Broken", "/static/img/products/no-such-image.svg")
        self.sign_in()
        outside = []
        self.page.on("request", lambda r: r.url.startswith(self.live_server_url) or outside.append(r.url))

        self.page.goto(self.url(f"/catalog/products/{shown}/"))
        image = self.page.locator("img.product-image")
        expect(image.first).to_have_js_property("complete", True)
        self.assertGreater(image.evaluate("img => img.naturalWidth"), 0)
        self.assertNotIn("broken", image.get_attribute("class"))

        self.page.goto(self.url(f"/catalog/products/{broken}/"))
        self.page.wait_for_selector("img.product-image.broken", state="attached")
        self.assertFalse(self.page.locator("img.product-image").is_visible())
        frame = self.page.locator(".image-frame").evaluate("el => getComputedStyle(el).backgroundImage")
        self.assertIn("placeholder.svg", frame)
        self.assertEqual(outside, [])
