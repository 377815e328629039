"""The catalog's invariants catch each kind of drift, and their repairs put it right."""

import json
import random
import threading

from django.core.management import call_command
from django.test import tag

from catalog import keys, store
from config.invariants import registry, violations
from config.redis import client
from tests.base import RedisTestCase, run_concurrently
from tests.catalog.helpers import TESTER, make_product, part, product_count, review


def messages():
    return [v.message for _, v in violations(["catalog"])]


def repair():
    for inv in registry.for_apps(["catalog"]):
        if list(inv.check()) and inv.repair:
            inv.repair()


class InvariantTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.product = make_product(tags=["wireless", "sport"])
        self.other = make_product("Other Buds", sku="OB-1", tags=["wireless"])
        self.reviews = [review(self.product, r, at=float(n)) for n, r in enumerate((5, 4, 3, 2))]
        self.assertEqual(messages(), [])

    def assertCaught(self, fragment):
        found = messages()
        self.assertTrue(any(fragment in m for m in found), found)
        repair()
        self.assertEqual(messages(), [])

    def test_a_wrong_count_is_caught_and_repaired(self):
        client().hset(keys.product(self.product), "num_reviews", 9)
        self.assertCaught("num_reviews is 9, its review set holds 4")

    def test_a_wrong_sum_is_caught_and_repaired(self):
        client().hincrby(keys.product(self.product), "sum_ratings", 3)
        self.assertCaught("sum_ratings is 17, its reviews sum to 14")
        self.assertEqual(client().zscore(keys.sort_index("rating", part(self.product)), str(self.product)), 3.5)

    def test_a_stale_embed_is_caught_and_repaired(self):
        client().hset(keys.product(self.product), "recent_reviews", json.dumps([]))
        self.assertCaught("recent_reviews holds []")
        self.assertEqual(len(store.get(self.product).recent), 3)

    def test_a_missing_or_wrong_sort_entry_is_caught_and_repaired(self):
        client().zadd(keys.sort_index("rating", part(self.product)), {str(self.product): 1})
        client().zrem(keys.sort_index("price", part(self.other)), str(self.other))
        self.assertCaught("rating index holds 1.0, expected 3.5")

    def test_a_stale_tag_type_or_sku_entry_is_caught_and_repaired(self):
        client().sadd(keys.tag_index("refurbished", part(self.other)), str(self.other))
        client().sadd(keys.type_index("monitor", part(self.other)), str(self.other))
        client().hset(keys.skus(), "GHOST", 77)
        self.assertCaught("the indexes hold product 77, which does not exist")
        self.assertFalse(client().exists(keys.tag_index("refurbished", part(self.other))))
        self.assertFalse(client().sismember(keys.type_index("monitor", part(self.other)), str(self.other)))

    def test_a_broken_type_creation_index_is_caught_and_rebuilt_from_the_hashes(self):
        created = store.get(self.product).created_at
        client().zrem(keys.type_created("earbuds", part(self.other)), str(self.other))
        client().zadd(keys.type_created("earbuds", part(self.product)), {str(self.product): 5.0, "77": 1.0})
        client().zadd(keys.type_created("monitor", part(self.product)), {str(self.product): created})
        found = messages()
        for expected in (
            f"product {self.other} is missing from the earbuds creation index",
            f"product {self.product}: the earbuds creation index scores it 5.0, it was created at {created}",
            f"product {self.product} is of type earbuds, the monitor creation index holds it",
            "the earbuds creation index holds product 77, which does not exist",
        ):
            self.assertIn(expected, found)
        self.assertEqual(len(found), 4, found)  # the type sets and the other indexes are not involved
        store.rebuild_indexes()
        self.assertEqual(messages(), [])
        held = {p: client().zrange(keys.type_created("earbuds", p), 0, -1, withscores=True) for p in keys.partitions()}
        expected = {p: [] for p in keys.partitions()}
        for product_id in (self.product, self.other):  # in each one's partition, by creation time
            expected[part(product_id)].append((str(product_id), store.get(product_id).created_at))
        self.assertEqual(held, expected)
        self.assertFalse(any(client().exists(keys.type_created("monitor", p)) for p in keys.partitions()))

    def test_the_full_index_rebuild_also_drops_stale_type_creation_entries(self):
        client().zadd(keys.type_created("monitor", part(self.other)), {str(self.other): 1.0})
        client().sadd(keys.type_index("monitor", part(self.other)), str(self.other))
        store.rebuild_indexes()
        self.assertEqual(messages(), [])
        self.assertFalse(client().exists(keys.type_created("monitor", part(self.other))))

    def test_a_tag_cloud_count_that_disagrees_is_caught(self):
        client().zincrby(keys.tags(part(self.product)), 2, "sport")
        self.assertCaught("tag 'sport': the tag cloud counts 3, its set holds 1")

    def test_a_dangling_review_id_and_an_orphan_review_are_caught_and_repaired(self):
        client().delete(keys.review(self.reviews[0]))
        self.assertCaught(f"lists review {self.reviews[0]}, which has no hash")
        self.assertEqual(store.get(self.product).num_reviews, 3)
        client().hset(keys.review(999), mapping={"product": "12345", "rating": "5", "author": "x"})
        self.assertCaught("review 999 names product 12345")
        self.assertFalse(client().exists(keys.review(999)))

    def test_check_integrity_command_passes_on_seeded_data(self):
        call_command("seed", "--only", "catalog", "--reset", verbosity=0)
        self.assertGreater(product_count(), 150)
        self.assertEqual(messages(), [])


class ConcurrencyTest(RedisTestCase):
    sign_in = False

    def test_eight_threads_adding_and_deleting_reviews_on_one_product_keep_every_invariant(self):
        product_id = make_product(tags=["wireless"])
        pool = [review(product_id, 1 + n % 5, at=1000.0 + n) for n in range(40)]
        lock = threading.Lock()

        def worker(seed):
            rng = random.Random(seed)
            for _ in range(20):
                with lock:
                    victim = pool.pop(rng.randrange(len(pool))) if pool and rng.random() < 0.5 else None
                if victim is None:
                    new = review(product_id, rng.randint(1, 5), author=f"t{seed}", at=2000.0 + rng.random())
                    with lock:
                        pool.append(new)
                else:
                    store.delete_review(victim, actor=TESTER)

        run_concurrently(worker, [(n,) for n in range(8)])
        product = store.get(product_id)
        self.assertEqual(product.num_reviews, len(pool))
        self.assertEqual(client().zscore(keys.sort_index("reviews", part(product_id)), str(product_id)), len(pool))
        self.assertEqual(messages(), [])


@tag("cluster")
class PartitionLayoutTest(RedisTestCase):
    sign_in = False

    def test_a_product_written_with_another_partition_count_is_reported(self):
        make_product()
        self.assertEqual(messages(), [])
        elsewhere = "catalog:{catalog}:product:4" if keys.PARTITIONS > 1 else "catalog:{catalog.1}:product:4"
        client().hset(elsewhere, mapping={"name": "Stray", "num_reviews": "0"})
        found = [m for m in messages() if "laid out for another partition count" in m]
        self.assertEqual(len(found), 1, messages())
        self.assertIn(elsewhere, found[0])
        self.assertIn(f"CATALOG_PARTITIONS={keys.PARTITIONS}", found[0])


@tag("cluster")
class SkuClaimTest(RedisTestCase):
    """A SKU claimed by a write that died before its product's script, or not released by an edit that
    died after it, is what the index check reports and its repair rebuilds (catalog.store.skus)."""

    sign_in = False

    def test_a_claim_left_by_a_writer_that_died_is_reported_and_repaired(self):
        from catalog.store import skus

        product = make_product(sku="KEEP-1")
        ghost = product + 10 * keys.PARTITIONS  # an id drawn, its product never written
        self.assertEqual(skus.claim([("GHOST-1", ghost)]), ["ok"])
        self.assertEqual(skus.claim([("OLD-1", product)]), ["ok"])  # an edit that gave it up, never released
        found = messages()
        self.assertIn(f"the indexes hold product {ghost}, which does not exist", found)
        self.assertIn(f"product {product} owns 2 SKUs in the SKU index", found)
        repair()
        self.assertEqual(messages(), [])
        self.assertEqual(client().hgetall(keys.skus()), {"KEEP-1": str(product)})

    def test_a_claim_takes_every_sku_or_none_and_a_release_only_its_own(self):
        from catalog.store import skus

        first, second = make_product(sku="A-1"), make_product(sku="B-1")
        refused = ["refused", "sku", f"SKU B-1 is already used by product {second}."]
        self.assertEqual(skus.claim([("C-1", first), ("B-1", first)]), refused)
        self.assertIsNone(store.sku_owner("C-1"))  # none taken
        skus.release([("B-1", first), ("A-1", first)])  # B-1 is not first's: kept
        self.assertEqual((store.sku_owner("A-1"), store.sku_owner("B-1")), (None, second))
