"""The seeder (demo scale, deterministic) and ``import_catalog`` (all or nothing)."""

import json
import tempfile
from collections import Counter
from io import StringIO
from pathlib import Path

from django.core.management import CommandError, call_command
from django.test import tag

from catalog import keys, store
from config.invariants import violations
from config.keyspace import keyspace
from config.redis import client
from tests.base import RedisTestCase, flush_test_redis
from tests.catalog.helpers import TESTER, make_product, product_count, review


def snapshot():
    """Every catalog hash and sorted set, as plain values."""
    found = {}
    for key in sorted(client().scan_iter(match="catalog:*")):
        kind = client().type(key)
        if kind == "hash":
            found[key] = client().hgetall(key)
        elif kind == "zset":
            found[key] = client().zrange(key, 0, -1, withscores=True)
        elif kind == "set":
            found[key] = sorted(client().smembers(key))
        else:
            found[key] = client().get(key)
    return found


@tag("cluster")
class SeedTest(RedisTestCase):
    sign_in = False

    def test_demo_seeds_about_200_products_and_2000_reviews_the_same_way_twice(self):
        call_command("seed", "--only", "catalog", verbosity=0)
        products = product_count()
        reviews = len(list(client().scan_iter(match=keys.review("*"), count=1000)))
        self.assertEqual(products, 200)
        self.assertTrue(1500 <= reviews <= 2500, reviews)
        self.assertEqual(violations(["catalog"]), [])
        first = snapshot()
        unregistered = [k for k in first if getattr(keyspace.match(k), "app", None) != "catalog"]
        self.assertEqual(unregistered, [])
        flush_test_redis()
        call_command("seed", "--only", "catalog", verbosity=0)
        self.assertEqual(snapshot(), first)

    def test_seeding_again_is_refused_and_reset_replaces_the_data(self):
        call_command("seed", "--only", "catalog", verbosity=0)
        with self.assertRaisesMessage(CommandError, "catalog already holds data; nothing was seeded"):
            call_command("seed", "--only", "catalog", verbosity=0)
        self.assertEqual(product_count(), 200)
        call_command("seed", "--only", "catalog", "--reset", verbosity=0)
        self.assertEqual(product_count(), 200)
        self.assertEqual(client().hlen(keys.skus()), 200)
        self.assertEqual(violations(["catalog"]), [])


class ImportTest(RedisTestCase):
    sign_in = False

    def run_import(self, records):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "catalog.json"
            path.write_text(json.dumps(records))
            out = StringIO()
            call_command("import_catalog", str(path), stdout=out)
            return out.getvalue()

    GOOD = [
        {
            "type": "earbuds",
            "name": "Import Buds",
            "brand": "Imp",
            "sku": "IMP-1",
            "model": "I1",
            "batteryLife": 20,
            "connectionType": "bluetooth",
            "fit": "in-ear",
            "price": 49.5,
            "tags": ["wireless", "sport"],
            "reviews": [{"author": "a", "rating": 5}, {"author": "b", "rating": 2, "comment": "meh"}],
        },
        {
            "type": "game console",
            "name": "Import Box",
            "brand": "Imp",
            "sku": "IMP-2",
            "model": "B2",
            "storage_type": "ssd",
            "usbPorts": 2,
            "hdmiPorts": 1,
            "gpu": "G1",
        },
    ]

    def test_a_good_file_imports_every_product_its_reviews_and_indexes(self):
        out = self.run_import(self.GOOD)
        self.assertIn("Import Buds (earbuds, IMP-1): 2 reviews", out)
        self.assertIn("Imported 2 products and 2 reviews", out)
        buds = store.get(store.sku_owner("IMP-1"))
        self.assertEqual((buds.attrs["battery_life"], buds.num_reviews, buds.sum_ratings), ("20", 2, 7))
        self.assertEqual([r.author for r in buds.recent], ["b", "a"])
        box = store.get(store.sku_owner("imp-2"))
        self.assertEqual((box.type, box.attrs["usb_ports"]), ("game_console", "2"))
        self.assertEqual(violations(["catalog"]), [])

    def test_a_bad_record_is_reported_by_index_and_nothing_is_written(self):
        taken = make_product(sku="TAKEN-1")
        before = snapshot()
        bad = [
            *self.GOOD,
            {**self.GOOD[0], "sku": "IMP-3", "batteryLife": -1},
            {**self.GOOD[1], "sku": "IMP-4", "fit": "in-ear"},
            {"type": "toaster", "name": "x"},
            {**self.GOOD[1], "sku": "TAKEN-1"},
            {**self.GOOD[0], "sku": "IMP-5", "reviews": [{"author": "c", "rating": 9}]},
        ]
        with self.assertRaises(CommandError) as caught:
            self.run_import(bad)
        message = str(caught.exception)
        self.assertIn("record 2 (Import Buds): battery_life: Ensure this value is greater than or equal to 1.", message)
        self.assertIn("record 3 (Import Box): fit: belongs to the earbuds type, not to game console", message)
        self.assertIn('record 4 (x): type: unknown type "toaster"', message)
        self.assertIn(f"record 5 (Import Box): sku: SKU TAKEN-1 is already used by product {taken}.", message)
        self.assertIn("record 6 (Import Buds): reviews[0].rating: 9 is not a rating from 0 to 5", message)
        self.assertEqual(snapshot(), before)

    def test_a_sku_repeated_in_the_file_is_cleared_on_the_later_record_and_reported(self):
        out = self.run_import([*self.GOOD, {**self.GOOD[1], "name": "Again", "sku": "imp-1"}])
        self.assertIn('sku (repeated in the file: cleared): 1 value rewritten, e.g. record 2 "imp-1" → ""', out)
        again = store.get(max(int(i) for p in keys.partitions() for i in client().zrange(keys.products(p), 0, -1)))
        self.assertEqual((again.name, again.sku), ("Again", ""))
        self.assertEqual(store.sku_owner("IMP-1"), store.get(store.sku_owner("IMP-1")).id)
        self.assertEqual(violations(["catalog"]), [])


@tag("cluster")
class ExportImportTest(RedisTestCase):
    """``export_data`` then ``import_data`` of the catalog: the bulk writers restore what was there."""

    sign_in = False

    def test_an_import_restores_every_product_and_review_with_one_event_an_entity(self):
        from config.store import activity, events_lengths

        first = make_product("Sonique Buds", tags=("wireless", "sport"), at=1000.0)
        second = make_product("Nova Box", type="game_console", sku="NB-1", tags=("gaming",), at=2000.0)
        bare = make_product("Quiet Pods", sku="QP-1", price="", at=3000.0)
        edited = store.get(second)
        edited.name = "Nova Box Pro"
        store.update(second, edited, edited.rev, actor=TESTER, at=2500.0)
        for n, rating in enumerate((5, 3, 4, 1, 2)):
            review(first, rating, author=f"a{n}", at=5000.0 + n, comment="Fine & <ok>")
        review(second, 4, at=5000.0)
        review(second, 2, at=5000.0)  # the same time: the embed orders them by id, as the set does
        before = {pk: store.get(pk) for pk in (first, second, bare)}
        with tempfile.TemporaryDirectory() as tmp:
            quiet = {"stdout": StringIO(), "stderr": StringIO()}
            call_command("export_data", "--only", "catalog", tmp, **quiet)
            flush_test_redis()
            call_command("import_data", "--only", "catalog", tmp, **quiet)
        self.assertEqual({pk: store.get(pk) for pk in before}, before)
        self.assertEqual(violations(["catalog"]), [])
        # One event an entity in each partition it was written to (one partition: one for each); the
        # products' partitions follow their ids, which depend on the blocks of ids drawn before.
        products = Counter(keys.partition_of(pk) for pk in (first, second, bare))
        reviews = Counter({keys.partition_of(first): 5}) + Counter({keys.partition_of(second): 2})
        expected = [f"{n} imported products" for n in products.values()]
        expected += [f"{n} imported reviews" for n in reviews.values()]
        self.assertEqual(sum(events_lengths().values()), len(expected))
        self.assertEqual(sorted(event.label for event in activity(events=9).events), sorted(expected))
        self.assertGreater(review(bare, 5), 7)  # a new review never takes an imported review's id
