"""``import_catalog`` on the e-book's own sample data, unchanged, and on files people really have."""

import json
import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import CommandError, call_command

from catalog import keys, store
from config.invariants import violations
from config.redis import client
from tests.base import RedisTestCase
from tests.catalog.helpers import FIRST_ID, holders_of, part

DATA = Path(__file__).parent / "data"


def catalog_keys():
    return sorted(client().scan_iter(match="catalog:*"))


class CompanionFilesTest(RedisTestCase):
    """The companion repository's files (see data/README.md) import as a reader would download them."""

    def run_import(self, path, *extra):
        out = StringIO()
        call_command("import_catalog", str(path), *extra, stdout=out)
        return out.getvalue()

    def test_the_polymorphic_pattern_file_imports_unchanged_and_says_what_it_normalized(self):
        out = self.run_import(DATA / "polymorphic-pattern.json")
        self.assertIn("Imported 2 products and 0 reviews", out)
        for line in (
            'battery_life: 1 value rewritten, e.g. record 0 "8 hours" → "8"',
            'fit: 1 value rewritten, e.g. record 0 "In-ear" → "in-ear"',
            'storage_type: 1 value rewritten, e.g. record 1 "SSD" → "ssd"',
            'type: 1 value rewritten, e.g. record 1 "game console" → "game_console"',
            '(field names): 5 values rewritten, e.g. record 0 "batteryLife" → "battery_life"',
            'sku (repeated in the file: cleared): 1 value rewritten, e.g. record 1 "6426149" → ""',
        ):
            self.assertIn(line, out)
        buds = store.get(store.sku_owner("6426149"))
        self.assertEqual((buds.type, buds.name, buds.model), ("earbuds", "Beats Studio Buds", "3006634/3005718"))
        self.assertEqual(buds.attrs, {"battery_life": "8", "connection_type": "bluetooth", "fit": "in-ear"})
        (console_id,) = holders_of(keys.type_index, "game_console")
        console = store.get(int(console_id))
        self.assertEqual(console.attrs, {"usb_ports": "2", "hdmi_ports": "2", "storage_type": "ssd"})  # no GPU: empty
        self.assertEqual(console.sku, "")
        self.assertEqual(violations(["catalog"]), [])
        page = self.client.get(f"/catalog/products/{console.id}/")
        self.assertContains(page, 'data-field="storage_type">ssd')
        self.assertContains(page, 'data-field="gpu">—')

    def test_the_aggregate_pattern_file_imports_products_by_name_with_their_reviews_and_no_type(self):
        source = json.loads((DATA / "aggregate-pattern.json").read_text())
        out = self.run_import(DATA / "aggregate-pattern.json")
        self.assertIn("Imported 10 products and 1000 reviews", out)
        self.assertIn(f"#{FIRST_ID} Earbuds (no type): 100 reviews", out)
        self.assertEqual(violations(["catalog"]), [])
        for product_id, record in enumerate(source, start=FIRST_ID):
            product = store.get(product_id)
            self.assertEqual((product.name, product.type, product.brand, product.sku), (record["name"], "", "", ""))
            ratings = [r["rating"] for r in record["reviews"]]
            self.assertEqual((product.num_reviews, product.sum_ratings), (len(ratings), sum(ratings)))
            newest = [r["author"] for r in reversed(record["reviews"][-3:])]
            self.assertEqual([r.author for r in product.recent], newest)
        self.assertEqual(
            client().zscore(keys.sort_index("rating", part(FIRST_ID)), str(FIRST_ID)),
            round(sum(r["rating"] for r in source[0]["reviews"]) / 100, 6),
        )
        self.assertEqual(holders_of(keys.type_index, "earbuds"), set())
        for path in (
            "/catalog/products/",
            f"/catalog/products/{FIRST_ID}/",
            f"/catalog/products/{FIRST_ID}/edit/",
            f"/catalog/products/{FIRST_ID}/reviews/",
        ):
            self.assertEqual(self.client.get(path).status_code, 200, path)
        detail = self.client.get(f"/catalog/products/{FIRST_ID}/")
        self.assertContains(detail, source[0]["reviews"][-1]["author"])
        self.assertNotContains(detail, 'id="type-fields"')

    def test_an_untyped_product_can_be_edited_and_given_a_type(self):
        self.run_import(DATA / "aggregate-pattern.json")
        second = FIRST_ID + 1
        form = self.client.get(f"/catalog/products/{second}/edit/").context["form"]
        post = {**{k: v for k, v in form.initial.items() if v is not None}, "images": "", "videos": "", "tags": ""}
        response = self.client.post(f"/catalog/products/{second}/edit/", {**post, "brand": "Sony"})
        self.assertRedirects(response, f"/catalog/products/{second}/")
        self.assertEqual(store.get(second).type, "")
        post.update(type="game_console", storage_type="SSD".lower(), brand="Sony")
        self.client.post(f"/catalog/products/{second}/edit/", {**post, "version": store.get(second).rev})
        self.assertEqual((store.get(second).type, store.get(second).num_reviews), ("game_console", 100))
        self.assertEqual(violations(["catalog"]), [])

    def test_a_byte_order_mark_is_read(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bom.json"
            path.write_bytes(b"\xef\xbb\xbf" + (DATA / "polymorphic-pattern.json").read_bytes())
            self.assertIn("Imported 2 products", self.run_import(path))


class UnreadableFileTest(RedisTestCase):
    sign_in = False

    def refused(self, data: bytes) -> str:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "catalog.json"
            path.write_bytes(data)
            with self.assertRaises(CommandError) as caught:
                call_command("import_catalog", str(path), stdout=StringIO())
        self.assertEqual(catalog_keys(), [])
        return str(caught.exception)

    def test_nesting_too_deep_to_read_is_a_clear_error_never_a_traceback(self):
        self.assertIn("nested too deeply to read", self.refused(b"[" * 200_000 + b"]" * 200_000))
        nested = json.dumps([{"name": "Deep", "description": json.loads("[" * 40 + "]" * 40)}]).encode()
        self.assertIn("nested too deeply to read", self.refused(nested))

    def test_other_unreadable_files_say_why(self):
        self.assertIn("not UTF-8", self.refused('[{"name": "Caf\xe9"}]'.encode("latin-1")))
        self.assertIn(
            "not JSON: Expecting property name enclosed in double quotes at line 1, column 3", self.refused(b"[{]")
        )
        self.assertIn("expected a JSON list of products", self.refused(b'{"name": "x"}'))

    def test_values_that_cannot_be_read_are_refused_with_record_and_field_and_nothing_is_written(self):
        records = [
            {"type": "earbuds", "name": "Good", "batteryLife": "10h"},
            {"type": "Earbuds", "name": "Slow", "batteryLife": "8 minutes"},
            {"type": "phone", "name": "Odd", "wirelessCharging": "sometimes", "storageGb": "256 GB"},
            {"name": "Nested", "brand": {"name": "x"}},
            {"name": "Typeless", "fit": "in-ear"},
            ["not", "a", "record"],
        ]
        message = self.refused(json.dumps(records).encode())
        self.assertIn("record 1 (Slow): battery_life: '8 minutes' is not a number in hours", message)
        self.assertIn("record 2 (Odd): wireless_charging: 'sometimes' is not yes or no", message)
        self.assertIn("record 3 (Nested): brand: expected a single value, not a dict", message)
        self.assertIn("record 4 (Typeless): fit: belongs to the earbuds type, and this record names no type", message)
        self.assertIn("record 5: (record): not a JSON object", message)
        self.assertNotIn("record 0", message)


class NormalizationTest(RedisTestCase):
    sign_in = False

    def test_booleans_units_choices_tags_and_prices_in_the_sources_words(self):
        records = [
            {"type": "Phone", "name": "P1", "sku": "P-1", "wirelessCharging": "Yes", "storage_gb": "256 GB",
             "os": "iOS", "screenSize": "6.1 in", "price": "$1,099.00", "tags": "UX test, 5G"},
            {"type": "PHONE", "name": "P2", "sku": "P-2", "wireless_charging": False, "batteryMah": "4000mAh",
             "reviews": [{"author": "a", "rating": "4 stars"}, {"author": "b", "rating": 0.0}]},
        ]  # fmt: skip
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "catalog.json"
            path.write_text(json.dumps(records))
            out = StringIO()
            call_command("import_catalog", str(path), "--dry-run", stdout=out)
            self.assertEqual(catalog_keys(), [])
            self.assertIn("Would import 2 products and 2 reviews (dry run).", out.getvalue())
            self.assertIn('wireless_charging: 2 values rewritten, e.g. record 0 "Yes" → "yes"', out.getvalue())
            self.assertIn('tags: 2 values rewritten, e.g. record 0 "UX test" → "ux-test"', out.getvalue())
            self.assertIn('price: 1 value rewritten, e.g. record 0 "$1,099.00" → "1099.00"', out.getvalue())
            call_command("import_catalog", str(path), stdout=StringIO())
        first, second = store.get(store.sku_owner("P-1")), store.get(store.sku_owner("P-2"))
        self.assertEqual(
            first.attrs, {"os": "ios", "storage_gb": "256", "screen_size": "6.1", "wireless_charging": "yes"}
        )
        self.assertEqual((str(first.price), first.tags), ("1099.00", ["ux-test", "5g"]))
        self.assertEqual(second.attrs, {"battery_mah": "4000", "wireless_charging": "no"})
        self.assertEqual((second.num_reviews, second.sum_ratings), (2, 4))
        self.assertEqual(violations(["catalog"]), [])
