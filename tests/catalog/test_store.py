"""The catalog store: atomic writes, every index kept, list queries computed inside Redis."""

import dataclasses
import json
from unittest import mock

from django.test import tag

from catalog import keys, store
from catalog.documents import LIST_FIELDS, Product, name_score
from catalog.store import NewReview
from config.invariants import violations
from config.keyspace import keyspace
from config.redis import client, on_cluster
from config.store.bulk import BULK, BulkWrite
from config.store.ids import ID_BLOCK
from config.store.scripts import run_script
from tests.base import RedisTestCase, flush_test_redis, run_concurrently
from tests.catalog.helpers import CONSOLE, EARBUDS, SKU_TRIP, TESTER, make_product, part, review, sent_commands, waves


def window_read() -> str:
    """The command a filtered list's page of rows is read by: SORT itself on one server, where its
    transaction writes anyway; the script on a cluster, which refuses SORT's GET patterns."""
    return "EVAL" if on_cluster() else "SORT"


def mock_run(replacement):
    """Interpose on the checked batch's send (the store's own code still runs, against the real Redis)."""
    from unittest import mock

    return mock.patch.object(store.products.Batch, "run", replacement)


def catalog_keys():
    counters = set(store.counter_keys())
    return sorted(k for k in client().scan_iter(match="catalog:*") if k not in counters)


@tag("cluster")
class ProductWriteTest(RedisTestCase):
    sign_in = False

    def test_create_writes_the_hash_every_index_and_the_event_in_one_transaction(self):
        product_id = store.new_product_id()
        product = Product("earbuds", "Sonique Buds", "Sonique", "SQ-1", tags=["wireless", "sport"], attrs=EARBUDS)
        make_product("Warm Up", sku="WARM-1")
        # The checked script, every key in KEYS (with several partitions, after the SKU's claim).
        with self.assertRoundTrips(1 + SKU_TRIP) as trace, self.assertCommands(1 + SKU_TRIP):
            store.create(product_id, product, actor=TESTER)
        (command,) = trace.round_trips[-1].commands
        self.assertEqual(command.name, "EVALSHA")
        self.assertEqual(keys.skus() in command.keys, keys.SKUS_WITH_PRODUCTS)
        self.assertIn(keys.events_of(product_id), command.keys)
        stored = client().hgetall(keys.product(product_id))
        self.assertEqual(stored["battery_life"], "24")
        self.assertEqual((stored["num_reviews"], stored["sum_ratings"], stored["recent_reviews"]), ("0", "0", "[]"))
        member, p = str(product_id), part(product_id)
        self.assertTrue(client().sismember(keys.type_index("earbuds", p), member))
        self.assertEqual(client().zscore(keys.type_created("earbuds", p), member), float(stored["created_at"]))
        self.assertTrue(client().sismember(keys.tag_index("wireless", p), member))
        self.assertEqual(client().zscore(keys.tags(p), "sport"), 1)
        self.assertEqual(client().hget(keys.skus(), "SQ-1"), member)
        self.assertEqual(client().zscore(keys.sort_index("name", p), member), name_score("Sonique Buds"))
        self.assertEqual(client().zscore(keys.sort_index("rating", p), member), 0)
        self.assertEqual(client().zscore(keys.names(p), f"sonique buds\x00{member}"), 0)
        (_, fields) = client().xrange(keys.events_of(product_id))[-1]
        self.assertEqual((fields["verb"], fields["entity"], fields["actor"]), ("created", "product", "tester"))

    def test_a_taken_sku_is_refused_case_insensitively_and_nothing_is_written(self):
        make_product(sku="SQ-1")
        before = catalog_keys()
        product = Product("earbuds", "Other", "Other", "sq-1", attrs=EARBUDS)
        with self.assertRaises(store.SkuTaken):
            store.create(store.new_product_id(), product, actor=TESTER)
        self.assertEqual(catalog_keys(), before)

    def test_changing_the_type_drops_the_old_types_fields_and_moves_the_type_set(self):
        product_id = make_product(type="earbuds")
        current = store.get(product_id)
        changed = Product("game_console", current.name, current.brand, current.sku, attrs=CONSOLE)
        store.update(product_id, changed, current.rev, actor=TESTER)
        stored = client().hgetall(keys.product(product_id))
        self.assertEqual(stored["type"], "game_console")
        self.assertEqual(stored["hdmi_ports"], "1")
        for gone in EARBUDS:
            self.assertNotIn(gone, stored)
        p = part(product_id)
        self.assertFalse(client().sismember(keys.type_index("earbuds", p), str(product_id)))
        self.assertTrue(client().sismember(keys.type_index("game_console", p), str(product_id)))
        self.assertIsNone(client().zscore(keys.type_created("earbuds", p), str(product_id)))
        self.assertEqual(client().zscore(keys.type_created("game_console", p), str(product_id)), current.created_at)
        self.assertEqual(violations(["catalog"]), [])

    def test_an_edit_keeps_reviews_and_moves_tags_name_and_sku(self):
        product_id = make_product(name="Old Name", sku="OLD-1", tags=["wireless", "refurbished"])
        review(product_id, 4)
        current = store.get(product_id)
        changed = Product("earbuds", "New Name", "Brand", "NEW-1", tags=["wireless", "sport"], attrs=EARBUDS)
        store.update(product_id, changed, current.rev, actor=TESTER)
        stored = store.get(product_id)
        self.assertEqual((stored.num_reviews, stored.sum_ratings, len(stored.recent_reviews)), (1, 4, 1))
        self.assertEqual(stored.rev, current.rev + 1)
        p = part(product_id)
        self.assertIsNone(client().zscore(keys.tags(p), "refurbished"))  # nobody carries it any more
        self.assertFalse(client().exists(keys.tag_index("refurbished", p)))
        self.assertIsNone(client().hget(keys.skus(), "OLD-1"))
        self.assertEqual(client().hget(keys.skus(), "NEW-1"), str(product_id))
        self.assertEqual(client().zrangebylex(keys.names(p), "-", "+"), [f"new name\x00{product_id}"])
        self.assertEqual(violations(["catalog"]), [])

    def test_a_stale_edit_is_refused_and_writes_nothing(self):
        product_id = make_product()
        before = client().hgetall(keys.product(product_id))
        changed = Product("earbuds", "Renamed", "B", before["sku"], attrs=EARBUDS)
        with self.assertRaises(store.EditConflict):
            store.update(product_id, changed, int(before["rev"]) - 1, actor=TESTER)
        self.assertEqual(client().hgetall(keys.product(product_id)), before)

    def test_delete_removes_the_product_its_reviews_and_every_reference_in_one_transaction(self):
        keep = make_product(name="Keep Me", sku="KEEP", tags=["wireless"])
        product_id = make_product(name="Gone Soon", sku="GONE", tags=["wireless", "sport"])
        gone = [review(product_id, rating) for rating in (5, 3, 4, 1)]
        review(keep, 2)
        # HGETALL and ZRANGE, then the script (with several partitions, then the SKU's release).
        with self.assertRoundTrips(2 + SKU_TRIP) as trace, self.assertCommands(3 + SKU_TRIP):
            store.delete(product_id, actor=TESTER)
        script = trace.round_trips[1].commands[0]
        self.assertEqual(script.name, "EVALSHA")
        self.assertIn(keys.review(gone[0]), script.keys)
        left = "\n".join(catalog_keys())
        self.assertNotIn(f":{product_id}", left.replace(f"\x00{keep}", ""))
        member, p = str(product_id), part(product_id)
        sorted_keys = [keys.products(p), keys.names(p), keys.type_created("earbuds", p)]
        sorted_keys += [keys.sort_index(n, p) for n in keys.SORTS]
        for key in sorted_keys:
            self.assertNotIn(member, [m.rsplit("\x00", 1)[-1] for m in client().zrange(key, 0, -1)], key)
        self.assertFalse(client().sismember(keys.tag_index("wireless", p), member))
        self.assertFalse(client().exists(keys.tag_index("sport", p)))
        self.assertEqual(sum(client().zscore(keys.tags(q), "wireless") or 0 for q in keys.partitions()), 1)
        self.assertEqual(client().hlen(keys.skus()), 1)
        self.assertEqual(client().zcard(keys.product_reviews(keep)), 1)
        self.assertEqual(len(list(client().scan_iter(match=keys.review("*")))), 1)
        self.assertEqual(violations(["catalog"]), [])


class RoundTripTest(RedisTestCase):
    """Every write is one script where its keys are known in advance, two where an id or a key must be read first."""

    sign_in = False

    def test_an_edit_with_the_product_in_hand_is_one_round_trip_and_one_command(self):
        product_id = make_product(tags=["wireless"])
        current = store.get(product_id)
        changed = Product("earbuds", "Renamed", "B", current.sku, tags=["sport"], attrs=EARBUDS)
        with self.assertRoundTrips(1), self.assertCommands(1):
            store.update(product_id, changed, current.rev, actor=TESTER, current=current)
        moved = Product("earbuds", "Renamed", "B", "NEW-SKU", tags=["sport"], attrs=EARBUDS)
        current = store.get(product_id)
        with self.assertRoundTrips(1 + 2 * SKU_TRIP):  # with several partitions: the claim, the script, the release
            store.update(product_id, moved, current.rev, actor=TESTER, current=current)
        self.assertEqual(store.get(product_id).name, "Renamed")
        self.assertEqual(violations(["catalog"]), [])

    def test_an_edit_from_a_stale_read_is_refused_inside_the_script(self):
        product_id = make_product()
        current = store.get(product_id)
        first = Product("earbuds", "First", "B", current.sku, attrs=EARBUDS)
        store.update(product_id, first, current.rev, actor=TESTER)
        with self.assertRaises(store.EditConflict):
            store.update(
                product_id, Product("earbuds", "Second", "B", "X-2", attrs=EARBUDS), current.rev, actor=TESTER,
                current=current,
            )  # fmt: skip
        self.assertEqual(store.get(product_id).name, "First")
        self.assertIsNone(store.sku_owner("X-2"))

    def test_a_review_add_is_one_round_trip_and_one_command(self):
        product_id = make_product()
        review(product_id, 3)  # the process's block of review ids is drawn here
        with self.assertRoundTrips(1) as trace, self.assertCommands(1):  # the script, its id from the block
            added = store.add_named_review(product_id, "Ann", 5, "", actor=TESTER)
        self.assertEqual(added.product_name, store.get(product_id).name)
        self.assertEqual([c.name for t in trace.round_trips for c in t.commands], ["EVALSHA"])
        written = trace.round_trips[0].commands[0].keys
        p = part(product_id)
        expected = {keys.product(product_id), keys.product_reviews(product_id), keys.sort_index("rating", p),
                    keys.review(added.id), keys.review_ids(p)}  # fmt: skip
        self.assertEqual(expected - set(written), set())

    def test_review_ids_come_from_the_counter_after_a_reset_and_a_missing_product_uses_none(self):
        product_id = make_product()
        first = review(product_id, 3)
        with self.assertRaises(store.NotFound):
            store.add_review(product_id + 1, "Ann", 4, "", actor=TESTER)
        if part(product_id) == part(product_id + 1):  # the same partition's block: the id it did not use
            self.assertEqual(review(product_id, 4), keys.id_in(part(product_id), keys.count_of(first) + 1))
        flush_test_redis()  # the data is gone: the block left is refused by the script, and drawn again
        product_id = make_product()
        self.assertEqual(review(product_id, 5), keys.id_in(part(product_id), 1))
        self.assertGreaterEqual(int(client().get(keys.review_ids(part(product_id)))), 1)
        self.assertEqual(violations(["catalog"]), [])

    def test_a_review_delete_is_two_round_trips(self):
        product_id = make_product()
        ids = [review(product_id, r, at=float(n)) for n, r in enumerate((1, 2, 3, 4, 5))]
        store.delete_review(ids[0], actor=TESTER, product_id=product_id)
        with self.assertRoundTrips(2), self.assertCommands(3):  # HGETALL and ZREVRANGE, then the script
            store.delete_review(ids[-1], actor=TESTER, product_id=product_id)
        self.assertEqual([r.id for r in store.get(product_id).recent], [ids[3], ids[2], ids[1]])
        self.assertEqual(violations(["catalog"]), [])

    def test_a_delete_that_lost_a_race_reads_again_and_deletes_the_new_review_too(self):
        product_id = make_product()
        review(product_id, 4)
        late = []
        real = store.products.Batch.run

        def racing(batch):
            if not late:  # a review lands between the delete's read and its script
                late.append(review(product_id, 2))
            return real(batch)

        with mock_run(racing):
            store.delete(product_id, actor=TESTER)
        self.assertFalse(client().exists(keys.review(late[0])))
        self.assertEqual(catalog_keys(), [])


class ConcurrentWriteTest(RedisTestCase):
    """The scripts' checks hold under contention: one SKU, one winner; one revision, one winning edit."""

    sign_in = False

    def test_eight_creates_of_one_sku_leave_one_product(self):
        won, refused = [], []

        def create(n):
            product = Product("earbuds", f"Racer {n}", "R", "RACE-1", attrs=EARBUDS)
            try:
                won.append(store.create(store.new_product_id(), product, actor=TESTER))
            except store.SkuTaken as taken:
                refused.append(taken.field)

        run_concurrently(create, [(n,) for n in range(8)])
        self.assertEqual((len(won), refused), (1, ["sku"] * 7))
        self.assertEqual(store.sku_owner("race-1"), won[0])
        self.assertEqual(violations(["catalog"]), [])

    def test_eight_edits_from_one_revision_let_exactly_one_win(self):
        product_id = make_product(tags=["wireless"])
        current = store.get(product_id)
        won, conflicts = [], []

        def edit(n):
            changed = Product("earbuds", f"Edit {n}", "B", f"ED-{n}", tags=[f"t{n}"], attrs=EARBUDS)
            try:
                store.update(product_id, changed, current.rev, actor=TESTER, current=current)
                won.append(n)
            except store.EditConflict:
                conflicts.append(n)

        run_concurrently(edit, [(n,) for n in range(8)])
        self.assertEqual((len(won), len(conflicts)), (1, 7))
        self.assertEqual(store.get(product_id).name, f"Edit {won[0]}")
        self.assertEqual(violations(["catalog"]), [])

    def test_a_product_with_thousands_of_reviews_is_deleted_whole(self):
        product = Product("earbuds", "Popular", "P", "POP-1", attrs=EARBUDS)
        reviews = [NewReview(f"r{n}", 1 + n % 5, "", float(n)) for n in range(5000)]
        (product_id,) = store.import_products([(product, reviews)], actor=TESTER, at=10_000.0)
        self.assertEqual(store.get(product_id).num_reviews, 5000)
        self.assertEqual(violations(["catalog"]), [])
        store.delete(product_id, actor=TESTER)
        self.assertEqual(catalog_keys(), [])


@tag("cluster")
class ReviewTest(RedisTestCase):
    sign_in = False

    def test_a_review_updates_the_embed_the_aggregate_and_the_sort_indexes_in_its_transaction(self):
        product_id = make_product()
        review(product_id, 5, at=100.0)
        review(product_id, 2, at=200.0)
        stored = store.get(product_id)
        self.assertEqual((stored.num_reviews, stored.sum_ratings), (2, 7))
        self.assertEqual(stored.average, 3.5)
        self.assertEqual([r.rating for r in stored.recent], [2, 5])
        self.assertEqual(client().zscore(keys.sort_index("rating", part(product_id)), str(product_id)), 3.5)
        self.assertEqual(client().zscore(keys.sort_index("reviews", part(product_id)), str(product_id)), 2)

    def test_deleting_one_of_the_three_newest_refills_the_embed_and_the_indexes(self):
        product_id = make_product()
        ids = [review(product_id, rating, at=float(n)) for n, rating in enumerate((1, 2, 3, 4, 5))]
        store.delete_review(ids[-1], actor=TESTER)
        stored = store.get(product_id)
        self.assertEqual([r.id for r in stored.recent], [ids[3], ids[2], ids[1]])
        self.assertEqual((stored.num_reviews, stored.sum_ratings), (4, 10))
        self.assertEqual(client().zscore(keys.sort_index("rating", part(product_id)), str(product_id)), 2.5)
        self.assertEqual(client().zscore(keys.sort_index("reviews", part(product_id)), str(product_id)), 4)
        self.assertFalse(client().exists(keys.review(ids[-1])))

    def test_a_review_on_a_missing_product_is_not_found_and_writes_nothing(self):
        with self.assertRaises(store.NotFound):
            review(99, 5)
        self.assertEqual(catalog_keys(), [])

    def test_a_page_of_reviews_and_the_name_is_one_round_trip(self):
        product_id = make_product()
        ids = [review(product_id, 1 + n % 5, at=float(n)) for n in range(25)]
        with self.assertRoundTrips(1):
            page = store.review_page(product_id, 20, 20)
        self.assertEqual(page.total, 25)
        self.assertEqual([r.id for r in page.reviews], list(reversed(ids[:5])))
        self.assertIsNone(store.review_page(999, 0, 20))


@tag("cluster")
class ProductIdBlockTest(RedisTestCase):
    sign_in = False

    def product(self, sku):
        return Product(type="earbuds", name=f"Buds {sku}", brand="B", sku=sku, attrs=dict(EARBUDS))

    def setUp(self):
        super().setUp()
        for block in store.products._IDS:  # every partition's block drawn afresh
            block.drop()

    def test_add_takes_ids_from_the_process_block_one_incrby_a_block(self):
        # INCRBY (the block), the script (with several partitions, after the SKU's claim)
        with self.assertRoundTrips(2 + SKU_TRIP), self.assertCommands(2 + SKU_TRIP):
            first = store.add(self.product("A-1"), actor=TESTER)
        with self.assertRoundTrips(1 + SKU_TRIP), self.assertCommands(1 + SKU_TRIP) as trace:  # no INCRBY
            second = store.add(self.product("A-2"), actor=TESTER)
        self.assertEqual(trace.round_trips[-1].commands[0].name, "EVALSHA")
        self.assertEqual((part(first), keys.count_of(first), keys.count_of(second)), (part(second), 1, 2))
        self.assertEqual(int(client().get(keys.product_ids(part(first)))), ID_BLOCK)  # the counter is past the block
        self.assertEqual(store.get(second).sku, "A-2")
        self.assertEqual(violations("catalog"), [])

    def test_a_stale_block_after_a_reset_is_drawn_again_and_a_taken_sku_gives_its_id_back(self):
        store.add(self.product("B-1"), actor=TESTER)
        flush_test_redis()  # the data is reset: the block's ids are no longer the counter's
        # the refused script, INCRBY, the script (with several partitions, a claim, a release, a claim)
        with self.assertRoundTrips(3 + 3 * SKU_TRIP):
            again = store.add(self.product("B-2"), actor=TESTER)
        self.assertEqual(keys.count_of(again), 1)
        with self.assertRaises(store.SkuTaken):
            store.add(self.product("b-2"), actor=TESTER)
        third = store.add(self.product("B-3"), actor=TESTER)
        self.assertEqual((part(third), keys.count_of(third)), (part(again), 2))  # the refused add's id, put back
        self.assertEqual(violations("catalog"), [])

    def test_concurrent_adds_never_share_an_id(self):
        ids = []

        def add(n):
            ids.append(store.add(self.product(f"C-{n}"), actor=TESTER))

        run_concurrently(add, [(n,) for n in range(8)])
        self.assertEqual({part(i) for i in ids}, {part(ids[0])})  # one block: this process's partition's
        self.assertEqual(sorted(keys.count_of(i) for i in ids), list(range(1, 9)))
        self.assertEqual(sorted(store.sku_owner(f"C-{n}") for n in range(8)), sorted(ids))
        self.assertEqual(violations("catalog"), [])


class WalkedPageTest(RedisTestCase):
    """A list of one set too large to count walks the sort index: the ids it tests follow the page and
    how many of the catalog the set holds, not the catalog's size."""

    sign_in = False

    def ids_tested(self, size: int, **chosen) -> int:
        """SISMEMBER calls (INFO commandstats counts a script's inner calls) for the first page of 10 of
        the products with, or without, a tag on every other product, among ``size`` products."""
        flush_test_redis()
        for n in range(size):
            make_product(
                f"Item {n} {'abc' if n % 2 == 0 else 'xyz'}", sku=f"IT-{n}", tags=["even" if n % 2 == 0 else "odd"]
            )

        def calls(name: str) -> int:
            return int(client().info("commandstats").get(f"cmdstat_{name}", {}).get("calls", 0))

        before = calls("sismember"), calls("zinterstore") + calls("zdiffstore")
        with mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", 0):
            result = store.list_products(store.ProductQuery(limit=10, live_counts=True, **chosen))
        self.assertEqual((len(result.rows), result.total, result.counts_of_catalog), (10, size // 2, True))
        self.assertEqual(calls("zinterstore") + calls("zdiffstore"), before[1])  # not a list built whole
        return calls("sismember") - before[0]

    def test_the_ids_tested_do_not_grow_with_the_catalog(self):
        if keys.PARTITIONS > 1:
            self.skipTest("several partitions intersect each one's index with the set")
        for chosen in ({"tags_all": ("even",)}, {"tags_none": ("odd",)}, {"q": "abc"}):  # a word's one piece: a set
            with self.subTest(**chosen):
                small, large = self.ids_tested(100, **chosen), self.ids_tested(300, **chosen)
                self.assertEqual(small, large)
                self.assertTrue(10 <= small <= 20, small)  # of the newest 20, every other one holds the tag


@tag("cluster")
class ListQueryTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        p = self.ids = {}
        p["quiet"] = make_product("Quiet Buds", tags=["wireless", "noise-cancelling"], price="199")
        p["cheap"] = make_product("Cheap Buds", tags=["wireless"], price="19")
        p["refurb"] = make_product("Refurb Buds", tags=["wireless", "noise-cancelling", "refurbished"], price="79")
        p["wired"] = make_product("Wired Buds", tags=["wired"], price="9")
        p["box"] = make_product("Game Box", type="game_console", tags=["wireless", "noise-cancelling"], price="499")
        for rating in (5, 5):
            review(p["quiet"], rating)
        review(p["refurb"], 3)
        for rating in (4, 1, 1):
            review(p["cheap"], rating)

    def names(self, result):
        return [row.name for row in result.rows]

    def test_a_page_past_the_first_holds_the_rows_the_whole_list_orders_there(self):
        for query in (
            store.ProductQuery(order="name"),
            store.ProductQuery(order="-rating"),
            store.ProductQuery(order="price", tags_all=("wireless",), live_counts=True),
            store.ProductQuery(order="-created", type="earbuds"),
        ):
            whole = self.names(store.list_products(dataclasses.replace(query, limit=10)))
            for offset in range(1, len(whole)):
                # Several partitions: the ids and scores of every partition's window, then the page's fields
                # (with a filter and its live counts, the tag names to count first).
                trips = (2 if query.live_counts else 1) + (keys.PARTITIONS > 1)
                with self.assertRoundTrips(trips) as trace:
                    page = store.list_products(dataclasses.replace(query, offset=offset, limit=2))
                self.assertEqual(self.names(page), whole[offset : offset + 2], (query, offset))
                if keys.PARTITIONS > 1:  # the page's fields: its own HMGETs, by id, after the windows' merge
                    self.assertEqual([c.name for c in waves(trace)[-1]], ["HMGET"] * len(page.rows))
        rows = [[str(self.ids[k]), name] for k, name in (("box", "Game Box"), ("quiet", "Quiet Buds"))]
        self.assertEqual(store.product_page(("name",), order="-price", offset=0, limit=2)[1], rows)
        self.assertEqual(store.product_page(("name",), order="-price", offset=1, limit=1)[1], rows[1:])

    def test_the_pages_of_several_partitions_reach_the_window_and_say_so(self):
        from catalog import views
        from catalog.store import gather

        two_a_page = dataclasses.replace(views.UNFILTERED, per_page=2)
        with mock.patch.object(gather, "WINDOW_LIMIT", 3), mock.patch.object(views, "UNFILTERED", two_a_page):
            result = store.list_products(store.ProductQuery(order="name", offset=2, limit=2))
            self.assertEqual(result.total, 5)
            self.assertEqual(result.reachable, 5 if keys.PARTITIONS == 1 else 3)
            self.assertEqual(self.names(result), ["Quiet Buds", "Refurb Buds"][: 2 if keys.PARTITIONS == 1 else 1])
            self.client.force_login(self.make_staff())
            page = self.client.get("/catalog/products/?o=name&per_page=2&page=2")
            if keys.PARTITIONS == 1:
                self.assertNotContains(page, 'id="window-hint"')
            else:
                self.assertContains(page, "The pages reach the first 3 of these 5 products")
                self.assertContains(page, "5 in all")  # the count stays the whole list's
                past = self.client.get("/catalog/products/?o=name&per_page=2&page=3")  # past the window
                self.assertEqual(past.status_code, 302)  # to the last page it reaches, with a message

    def test_the_issue_example_combines_tags_type_and_sort_in_one_round_trip(self):
        query = store.ProductQuery(
            order="-rating",
            type="earbuds",
            tags_all=("wireless", "noise-cancelling"),
            tags_none=("refurbished",),
            live_counts=True,
        )
        with self.assertRoundTrips(2) as trace:  # the tag names to count, then the list with its counts
            result = store.list_products(query)
        self.assertEqual(self.names(result), ["Quiet Buds"])
        self.assertEqual(result.total, 1)
        self.assertEqual(result.type_counts["earbuds"], 1)
        self.assertEqual(dict(result.tag_cloud), {"wireless": 1, "noise-cancelling": 1})
        commands = [c.name for c in waves(trace)[1]]
        for name in ("SINTERSTORE", "SDIFFSTORE", "ZINTERSTORE", "EXPIRE", window_read(), "UNLINK"):
            self.assertIn(name, commands)
        self.assertEqual(list(client().scan_iter(match=keys.temp("*", "*"))), [])

    def test_temporary_keys_expire_within_sixty_seconds(self):
        with self.assertRoundTrips(2) as trace:
            store.list_products(
                store.ProductQuery(tags_any=("wired", "refurbished"), tags_none=("x",), live_counts=True)
            )
        expires = [c for c in waves(trace)[1] if c.name == "EXPIRE"]
        stored = [c.keys[0] for c in waves(trace)[1] if c.name.endswith("STORE")]
        self.assertEqual({c.keys[0] for c in expires}, set(stored))
        self.assertTrue(all(0 < int(c.args[1]) <= 60 for c in expires))
        # the result, the any-of union and the combined filter, and the live counts' scratch key (a set: the
        # counts intersect the combined filter's set)
        self.assertEqual([keyspace.match(k).type for k in sorted(set(stored))].count("set"), 3 * keys.PARTITIONS)
        self.assertEqual(len(set(stored)), 4 * keys.PARTITIONS)  # as many a partition
        self.assertEqual(list(client().scan_iter(match=keys.temp("*", "*"))), [])

    def test_any_of_unions_and_none_of_subtracts(self):
        result = store.list_products(store.ProductQuery(order="name", tags_any=("wired", "refurbished")))
        self.assertEqual(self.names(result), ["Refurb Buds", "Wired Buds"])
        result = store.list_products(store.ProductQuery(order="name", tags_none=("wireless",)))
        self.assertEqual(self.names(result), ["Wired Buds"])

    def test_sorts_by_rating_reviews_name_and_price(self):
        def order(o):
            return self.names(store.list_products(store.ProductQuery(order=o, type="earbuds")))

        self.assertEqual(order("-rating"), ["Quiet Buds", "Refurb Buds", "Cheap Buds", "Wired Buds"])
        self.assertEqual(order("-reviews")[:3], ["Cheap Buds", "Quiet Buds", "Refurb Buds"])
        self.assertEqual(order("name"), ["Cheap Buds", "Quiet Buds", "Refurb Buds", "Wired Buds"])
        self.assertEqual(order("price"), ["Wired Buds", "Cheap Buds", "Refurb Buds", "Quiet Buds"])
        self.assertEqual(order("-created")[0], "Wired Buds")

    def test_the_unfiltered_list_pages_over_the_index_and_reads_only_list_fields(self):
        store.list_products(store.ProductQuery())
        # One script a partition: the page, its total and the chips (on one pipeline with several, which
        # then read the page's rows by id: it is not the first)
        trips, commands = (1, 1) if keys.PARTITIONS == 1 else (2, keys.PARTITIONS + 2)
        with self.assertRoundTrips(trips), self.assertCommands(commands) as trace, sent_commands() as sent:
            result = store.list_products(store.ProductQuery(order="name", offset=1, limit=2))
        self.assertEqual(self.names(result), ["Game Box", "Quiet Buds"])
        self.assertEqual((result.total, result.catalog_size), (5, 5))
        self.assertEqual(result.type_counts["earbuds"], 4)
        self.assertIn(("wireless", 4), result.tag_cloud)
        script = trace.round_trips[0].commands[0]
        self.assertEqual(script.name, "EVALSHA")
        args = sent[0]
        self.assertEqual(args[3], keys.sort_index("name", 0))  # the sort index itself: no temporary key
        gets = [a for a in args if "->" in str(a) and str(a).startswith("catalog:")]  # not the script's source
        if keys.PARTITIONS == 1:
            self.assertEqual(gets, [f"{keys.product_glob(0)}->{name}" for name in LIST_FIELDS])
        else:  # the windows carry ids and scores alone; the page's rows are read by id
            self.assertEqual(gets, [])
            self.assertEqual([list(a[2:]) for a in sent[-2:]], [list(LIST_FIELDS)] * 2)
        self.assertFalse({"description", "images", "videos", "recent_reviews"} & set(LIST_FIELDS))

    def test_a_page_of_a_few_fields_is_two_commands_in_one_round_trip(self):
        # ZCARD and SORT ... GET, no MULTI, no script (with several partitions, each one's and its window's scores)
        commands = 2 if keys.PARTITIONS == 1 else 3 * keys.PARTITIONS
        with self.assertRoundTrips(1), self.assertCommands(commands):
            total, rows = store.product_page(("name", "price"), order="-rating", limit=2)
        self.assertEqual(total, 5)
        self.assertEqual(
            rows, [[str(self.ids["quiet"]), "Quiet Buds", "199"], [str(self.ids["refurb"]), "Refurb Buds", "79"]]
        )
        # A page past the first with several partitions: each one's window of ids and scores, then its row
        deep = (1, commands) if keys.PARTITIONS == 1 else (2, 2 * keys.PARTITIONS + 1)
        with self.assertRoundTrips(deep[0]), self.assertCommands(deep[1]):
            total, rows = store.product_page(("name", "battery_life", "gpu"), type="earbuds", offset=1, limit=1)
        self.assertEqual(total, 4)
        self.assertEqual(rows, [[str(self.ids["refurb"]), "Refurb Buds", EARBUDS["battery_life"], None]])
        oldest = store.product_page(("name",), order="created", type="earbuds", limit=1)[1]
        self.assertEqual(oldest, [[str(self.ids["quiet"]), "Quiet Buds"]])
        with self.assertRaises(ValueError):
            store.product_page(("name",), order="-rating", type="earbuds")  # needs the set algebra
        with self.assertRaises(ValueError):
            store.product_page(("name",), type="toaster")

    def test_a_type_alone_is_a_page_of_its_creation_index_with_its_own_fields_in_one_round_trip(self):
        newest = make_product("Newest Buds", attrs={**EARBUDS, "battery_life": "40"})
        # the tag names to count and the type's size (whether the list is small enough to count), then: MULTI,
        # ZCARD, SORT (the script on a cluster), a ZINTERSTORE per tag (the live counts; with a type chosen the
        # type counts need none), EXPIRE, UNLINK, ZCARD, EXEC
        # (with several partitions, each one's share on a plain pipeline, its window's scores after SORT)
        tags = len(set().union(*(client().zrange(keys.tags(p), 0, -1) for p in keys.partitions())))
        per_part = ["ZCARD", window_read(), *["ZREVRANGE"] * (keys.PARTITIONS > 1), *["ZINTERSTORE"] * tags]
        per_part += ["EXPIRE", "UNLINK", "ZCARD"]
        names = ["MULTI", *per_part, "EXEC"] if keys.PARTITIONS == 1 else per_part * keys.PARTITIONS
        with self.assertRoundTrips(2) as trace, self.assertCommands(2 * keys.PARTITIONS + len(names)):
            result = store.list_products(store.ProductQuery(type="earbuds", limit=2, live_counts=True))
        self.assertEqual(self.names(result), ["Newest Buds", "Wired Buds"])
        self.assertEqual(result.total, 5)
        self.assertEqual([row.attrs for row in result.rows], [{**EARBUDS, "battery_life": "40"}, EARBUDS])
        self.assertEqual([(f.name, v) for f, v in result.rows[0].type_fields][0], ("battery_life", "40"))
        commands = waves(trace)[1]  # no set algebra, no hash read but SORT's GET
        self.assertEqual(sorted(c.name for c in commands), sorted(names))  # on a cluster, grouped by node
        if keys.PARTITIONS == 1:
            self.assertEqual([c.name for c in commands], names)
        counts = {"earbuds": 5, "game_console": 0, "monitor": 0, "phone": 0, "appliance": 0}
        self.assertEqual(result.type_counts, counts)
        self.assertEqual([c.keys[0] for c in commands[1:3]], [keys.type_created("earbuds", 0)] * 2)
        oldest = store.list_products(store.ProductQuery(type="earbuds", order="created", offset=1, limit=2))
        self.assertEqual(self.names(oldest), ["Cheap Buds", "Refurb Buds"])
        self.assertIn(newest, [row.id for row in store.list_products(store.ProductQuery(type="earbuds")).rows])

    def test_a_list_too_large_to_count_shows_the_catalogs_counts_without_an_intersection_a_tag(self):
        query = store.ProductQuery(tags_all=("wireless",), live_counts=True)  # 4 products carry it
        catalog = {"wireless": 4, "noise-cancelling": 3, "refurbished": 1, "wired": 1}
        types = {"earbuds": 4, "game_console": 1, "monitor": 0, "phone": 0, "appliance": 0}
        for limit, of_catalog in ((4, False), (3, True)):  # the list can hold 4: no more than its tag's set
            with self.subTest(limit=limit), mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", limit):
                with self.assertRoundTrips(2) as trace:
                    result = store.list_products(query)
                self.assertEqual(result.counts_of_catalog, of_catalog)
                self.assertEqual(sorted(self.names(result)), ["Cheap Buds", "Game Box", "Quiet Buds", "Refurb Buds"])
                self.assertEqual(result.total, 4)
                intersections = [c for c in waves(trace)[1] if c.name == "ZINTERSTORE"]
                if of_catalog:  # no count; one partition walks its sort index, several intersect it with the tag
                    self.assertEqual(dict(result.tag_cloud), catalog)
                    self.assertEqual(result.type_counts, types)
                    self.assertEqual(len(intersections), 0 if keys.PARTITIONS == 1 else keys.PARTITIONS)
                else:  # the list ordered (ZINTERSTORE), then each chip counted on its plain set: the tag's own
                    self.assertEqual(dict(result.tag_cloud), {"wireless": 4, "noise-cancelling": 3, "refurbished": 1})
                    self.assertEqual(result.type_counts, {**types, "earbuds": 3})
                    self.assertEqual(len(intersections), keys.PARTITIONS)
                    counts = [c for c in waves(trace)[1] if c.name == "SINTERSTORE"]
                    self.assertEqual(len(counts), (len(catalog) + len(types)) * keys.PARTITIONS)
                    tag_sets = {keys.tag_index("wireless", p) for p in keys.partitions()}
                    self.assertTrue(all(c.keys[1] in tag_sets for c in counts))

    def test_a_walked_page_holds_the_rows_the_intersection_orders_there(self):
        """One set's list too large to count is read by walking the sort index, a bounded step a call
        (or, where the set is less to read than the rest of the walk, from the set with its scores):
        the same rows as the live list's."""
        queries = [
            store.ProductQuery(tags_all=("wireless",)),
            store.ProductQuery(tags_any=("noise-cancelling",)),
            store.ProductQuery(type="earbuds", order="price"),
            store.ProductQuery(tags_none=("wired",)),  # the products outside the set
            store.ProductQuery(tags_none=("noise-cancelling",)),
            store.ProductQuery(q="bud"),  # a search whose matches are one piece's set
        ]
        orders = ("-created", "created", "name", "-name", "price", "-price", "-rating", "rating", "reviews")
        for base in queries:
            for order in orders if base.order == "-created" else (base.order,):
                query = dataclasses.replace(base, order=order, live_counts=True)
                whole = store.list_products(dataclasses.replace(query, limit=10))
                self.assertFalse(whole.counts_of_catalog)
                for budget in (store.walk.WALK_STEP, 1):
                    for offset in range(len(whole.rows) + 1):
                        with (
                            self.subTest(query=query, budget=budget, offset=offset),
                            mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", 0),
                            mock.patch("catalog.store.walk.WALK_STEP", budget),
                        ):
                            walked = store.list_products(dataclasses.replace(query, offset=offset, limit=2))
                            self.assertTrue(walked.counts_of_catalog)
                            self.assertEqual(walked.total, whole.total)
                            self.assertEqual(walked.rows, whole.rows[offset : offset + 2])
        self.assertEqual(list(client().scan_iter("catalog:*tmp*")), [])  # no scratch key left
        with mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", 0):  # a type's own creation index and a tag
            query = store.ProductQuery(type="earbuds", tags_all=("wireless",), live_counts=True)
            self.assertEqual(store.list_products(query).total, 3)  # not the tag's 4: the intersection's

    def test_the_bound_of_a_list_is_its_smallest_set_its_any_of_sets_together_or_its_search(self):
        for query, bound in (
            (store.ProductQuery(tags_all=("wireless", "refurbished")), 1),
            (store.ProductQuery(type="earbuds", tags_all=("noise-cancelling",)), 3),
            (store.ProductQuery(tags_any=("wired", "refurbished")), 2),
            (store.ProductQuery(q="quiet", tags_all=("wireless",)), 1),  # the search's one hit, the tag's 4
            (store.ProductQuery(tags_none=("wired",)), 5),  # the whole catalog
        ):
            with self.subTest(query=query):
                query = dataclasses.replace(query, live_counts=True)
                for limit, of_catalog in ((bound, False), (bound - 1, True)):
                    with mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", limit):
                        self.assertEqual(store.list_products(query).counts_of_catalog, of_catalog, limit)

    def test_a_capped_search_shows_the_catalogs_counts_without_an_intersection_a_tag(self):
        # four products' names hold it; its short word (a word's start) makes it a search of the pieces
        query = store.ProductQuery(q="buds b", live_counts=True)
        # The limit holds in each partition: with one match a partition, one of four is capped anywhere.
        for limit, capped in ((4, False), (1, True)):
            with self.subTest(limit=limit), mock.patch("catalog.store.prefetch.SEARCH_LIMIT", limit):
                with self.assertRoundTrips(2) as trace:
                    result = store.list_products(query)
                self.assertEqual((result.search_capped, result.counts_of_catalog), (capped, capped))
                self.assertEqual(result.total < 4, capped)  # the first matches by name in each partition
                counts = [c for c in waves(trace)[1] if c.name == "SINTERSTORE"]
                if capped:
                    self.assertEqual(counts, [])
                    self.assertEqual(dict(result.tag_cloud)["wireless"], 4)  # the catalog's
                    self.assertEqual(result.type_counts["earbuds"], 4)
                else:
                    self.assertTrue(counts)
                    self.assertEqual(result.type_counts["earbuds"], 4)
                    self.assertEqual(dict(result.tag_cloud)["wireless"], 3)  # the matches' (not Game Box)

    def test_a_chosen_tag_outside_the_catalogs_cloud_is_still_shown(self):
        query = store.ProductQuery(tags_all=("refurbished",), live_counts=True)
        with (
            mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", 0),
            mock.patch("catalog.store.gather.cloud_size", lambda: 1),  # the cloud: its most used tag alone
        ):
            result = store.list_products(query)
        self.assertTrue(result.counts_of_catalog)
        self.assertEqual(result.tag_cloud[-1], ("refurbished", 1))
        self.assertIn(("wireless", 4), result.tag_cloud)

    def test_a_type_combines_with_tags_and_search_and_brings_its_fields_in_every_order(self):
        for order in ("-created", "created", "-rating", "name"):
            query = store.ProductQuery(order=order, type="earbuds", tags_all=("noise-cancelling",), live_counts=True)
            with self.assertRoundTrips(2):  # the tag names to count, then the list with its counts
                result = store.list_products(query)
            self.assertEqual(sorted(self.names(result)), ["Quiet Buds", "Refurb Buds"], order)
            self.assertEqual([row.attrs for row in result.rows], [EARBUDS, EARBUDS])
        result = store.list_products(store.ProductQuery(type="game_console", tags_none=("wired",)))
        self.assertEqual((self.names(result), result.rows[0].attrs), (["Game Box"], CONSOLE))
        result = store.list_products(store.ProductQuery(type="earbuds", q="quiet"))
        self.assertEqual(self.names(result), ["Quiet Buds"])
        result = store.list_products(store.ProductQuery(type="monitor"))
        self.assertEqual((result.rows, result.total), ([], 0))
        self.assertEqual(store.list_products(store.ProductQuery()).rows[0].attrs, {})
        with self.assertRaises(ValueError):
            store.list_products(store.ProductQuery(type="toaster"))

    def test_search_by_name_prefix_and_exact_sku_is_two_round_trips(self):
        with self.assertRoundTrips(2):
            result = store.list_products(store.ProductQuery(q="qUIet", order="name"))
        self.assertEqual(self.names(result), ["Quiet Buds"])
        sku = client().hget(keys.product(self.ids["box"]), "sku")
        result = store.list_products(store.ProductQuery(q=sku.lower()))
        self.assertEqual(self.names(result), ["Game Box"])
        result = store.list_products(store.ProductQuery(q="nothing-like-this", type="earbuds"))
        self.assertEqual((result.rows, result.total), ([], 0))
        make_product("Quiet Wired", sku="QW-1", tags=["wired"], price="5")
        result = store.list_products(store.ProductQuery(q="quiet", tags_all=("wireless",), order="price"))
        self.assertEqual(self.names(result), ["Quiet Buds"])
        result = store.list_products(store.ProductQuery(q="quiet", order="price"))
        self.assertEqual(self.names(result), ["Quiet Wired", "Quiet Buds"])


class EmbedJsonTest(RedisTestCase):
    sign_in = False

    def test_the_embed_is_plain_json_the_detail_page_can_show(self):
        product_id = make_product()
        review(product_id, 4, author="<b>bo</b>", comment="fine")
        embed = json.loads(client().hget(keys.product(product_id), "recent_reviews"))
        self.assertEqual(embed[0]["author"], "<b>bo</b>")
        self.assertEqual(set(embed[0]), {"id", "author", "rating", "comment", "published_at"})


@tag("cluster")
class BulkWriteTest(RedisTestCase):
    """The seeder's and the import's script of plain commands: what it merges and what it sends whole."""

    sign_in = False

    def test_hashes_go_whole_or_in_chunks_and_index_additions_merge_per_key(self):
        bulk = BulkWrite()
        bulk.hset("t:{t}:small", mapping={"a": "1", "b": "2"})
        wide = {f"f{n}": str(n) for n in range(BulkWrite.CHUNK)}  # two commands' worth of arguments
        bulk.hset("t:{t}:wide", mapping=wide)
        bulk.zadd("t:{t}:z", {"x": 1.5})
        bulk.zadd("t:{t}:z", {"y": 2})
        bulk.sadd("t:{t}:s", "a", "b")
        bulk.sadd("t:{t}:s", "b", "c")
        keys_, args = bulk.prepared()
        self.assertEqual(keys_, ["t:{t}:small", "t:{t}:wide", "t:{t}:wide", "t:{t}:z", "t:{t}:s"])
        self.assertEqual(args[:6], ["4", "HSET", "a", "1", "b", "2"])
        self.assertEqual(bulk.send(), 0)  # prepared() emptied it
        self.assertEqual(run_script(BULK, keys_, args), 5)
        self.assertEqual(client().hgetall("t:{t}:small"), {"a": "1", "b": "2"})
        self.assertEqual(client().hgetall("t:{t}:wide"), wide)
        self.assertEqual(client().zrange("t:{t}:z", 0, -1, withscores=True), [("x", 1.5), ("y", 2.0)])
        self.assertEqual(client().smembers("t:{t}:s"), {"a", "b", "c"})

    def test_a_batch_is_one_traced_command_and_loaded_again_after_a_script_flush(self):
        warm = BulkWrite()
        warm.sadd("t:{t}:s", "warm")
        warm.send()  # the script is known to the server and to this client
        primaries = len(client().primaries()) if on_cluster() else 1  # SCRIPT LOAD goes to each, in turn
        flushed = ["EVALSHA", *["SCRIPT LOAD"] * primaries, "EVALSHA"]
        for attempt, sent in (("cached", ["EVALSHA"]), ("flushed", flushed)):
            if attempt == "flushed":
                client().script_flush()
            bulk = BulkWrite()
            bulk.hset(f"t:{{t}}:{attempt}", mapping={"a": "1", "é": "ü"})
            bulk.sadd("t:{t}:s", attempt)
            with self.assertRoundTrips(len(sent)) as trace:
                self.assertEqual(bulk.send(), 2)
            self.assertEqual([c.name for trip in trace.trips("data") for c in trip.commands], sent)
            self.assertEqual(client().hgetall(f"t:{{t}}:{attempt}"), {"a": "1", "é": "ü"})
        self.assertEqual(client().smembers("t:{t}:s"), {"warm", "cached", "flushed"})
