"""Bulk tag and untag of the ticked products: one script, every index kept, checked by the invariants."""

from catalog import keys, store
from config.invariants import violations
from config.redis import client
from tests.base import RedisTestCase, command_stats
from tests.catalog.helpers import make_product


def scripts_run() -> int:
    stats = command_stats()
    return sum(int(stats.get(name, {}).get("calls", 0)) for name in ("cmdstat_evalsha", "cmdstat_eval"))


class BulkTagTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.quiet = make_product("Quiet Buds", tags=["wireless"])
        self.loud = make_product("Loud Buds")
        self.box = make_product("Box One", type="game_console")

    def test_tag_and_untag_the_ticked_products_in_one_script(self):
        page = self.client.get("/catalog/products/").content.decode()
        self.assertIn('data-select-all="ids"', page)
        self.assertIn("Tag selected", page)
        ids = [str(self.quiet), str(self.loud)]
        before = scripts_run()
        response = self.client.post(
            "/catalog/products/tags/", {"ids": ids, "tag": "On Sale, wireless", "action": "tag", "back": "?o=name"}
        )
        self.assertEqual(scripts_run() - before, 1)  # both products, their tag sets and the cloud: one script
        self.assertRedirects(response, "/catalog/products/?o=name", fetch_redirect_response=False)
        shown = self.client.get(response.url)
        self.assertContains(shown, "Tagged on-sale, wireless: 2 products")
        self.assertEqual(store.get(self.quiet).tags, ["wireless", "on-sale"])
        self.assertEqual(store.get(self.loud).tags, ["on-sale", "wireless"])
        self.assertEqual(client().smembers(keys.tag_index("on-sale", 0)), {str(self.quiet), str(self.loud)})
        self.assertEqual(client().zscore(keys.tags(0), "on-sale"), 2)
        self.assertEqual(store.get(self.quiet).rev, 2)
        self.assertEqual(violations(["catalog"]), [])
        filtered = self.client.get("/catalog/products/", {"tags_all": "on-sale"})
        self.assertEqual({row.name for row in filtered.context["result"].rows}, {"Quiet Buds", "Loud Buds"})

        untagged = self.client.post(
            "/catalog/products/tags/", {"ids": [*ids, str(self.box)], "tag": "wireless", "action": "untag"}, follow=True
        )
        self.assertContains(untagged, "Took wireless from 2 products")
        self.assertContains(untagged, "1 of the selected products did not have wireless: left as they were.")
        self.assertEqual(client().zscore(keys.tags(0), "wireless"), None)  # no product holds it: out of the cloud
        self.assertEqual(violations(["catalog"]), [])

    def test_bad_input_writes_nothing_and_says_why(self):
        before = client().hgetall(keys.product(self.quiet))
        bad = self.client.post(
            "/catalog/products/tags/", {"ids": [self.quiet], "tag": "!!!", "action": "tag"}, follow=True
        )
        self.assertContains(bad, "Not a tag: !!!")
        none = self.client.post("/catalog/products/tags/", {"tag": "sale", "action": "tag"}, follow=True)
        self.assertContains(none, "Tick the products to change first; nothing was changed.")
        empty = self.client.post(
            "/catalog/products/tags/", {"ids": [self.quiet], "tag": "", "action": "tag"}, follow=True
        )
        self.assertContains(empty, "Type a tag, then choose Tag selected or Untag selected")
        self.assertEqual(client().hgetall(keys.product(self.quiet)), before)
        self.assertRedirects(
            self.client.get("/catalog/products/tags/"), "/catalog/products/", fetch_redirect_response=False
        )


class ProductSortTest(RedisTestCase):
    def test_type_brand_and_sku_sort_as_bounded_pages_of_their_indexes(self):
        make_product("Zeta Buds", sku="B-200")
        make_product("Alpha Box", type="game_console", sku="A-900")
        make_product("Mid Buds", sku="C-100")

        def names(order, **filters):
            rows = self.client.get("/catalog/products/", {"o": order, **filters}).context["result"].rows
            return [row.name for row in rows]

        self.assertEqual(names("sku"), ["Alpha Box", "Zeta Buds", "Mid Buds"])
        self.assertEqual(names("-sku"), ["Mid Buds", "Zeta Buds", "Alpha Box"])
        self.assertEqual(names("brand"), ["Alpha Box", "Mid Buds", "Zeta Buds"])  # the brand is the name's first word
        self.assertEqual(names("type"), ["Zeta Buds", "Mid Buds", "Alpha Box"])  # earbuds first, then by id
        self.assertEqual(names("-type")[0], "Alpha Box")
        self.assertEqual(names("sku", type="earbuds"), ["Zeta Buds", "Mid Buds"])
        page = self.client.get("/catalog/products/", {"o": "brand"}).content.decode()
        self.assertIn('href="?o=-brand"', page)
        self.assertEqual(violations(["catalog"]), [])

    def test_a_sort_reads_one_page_whatever_the_catalog_size(self):
        def work():
            stats = command_stats()
            before = {n: int(stats.get(f"cmdstat_{n}", {}).get("calls", 0)) for n in ("hmget", "zrange", "zrevrange")}
            self.client.get("/catalog/products/", {"o": "sku", "per": "10"})
            stats = command_stats()
            return {n: int(stats.get(f"cmdstat_{n}", {}).get("calls", 0)) - before[n] for n in before}

        for n in range(12):
            make_product(f"Item {n:02}", sku=f"S-{n:03}")
        small = work()
        for n in range(12, 60):
            make_product(f"Item {n:02}", sku=f"S-{n:03}")
        self.assertEqual(work(), small)
