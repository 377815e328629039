"""A list of one set too large to count is read in bounded steps: each command walks at most
``walk.WALK_STEP`` ids of the sort index, or reads at most a slice of the set, at two sizes of catalog,
and never intersects the set with the index whole."""

import dataclasses
from unittest import mock

from catalog import keys, store
from catalog.store import walk
from config.redis import client
from tests.base import RedisTestCase, commands_logged, flush_test_redis
from tests.catalog.helpers import make_product

SIZES = (120, 480)
STEP = 16  # the walk's step, small so that both sizes take several


def per_script(commands: list[list[bytes]]) -> list[dict[str, int]]:
    """For each script run, the commands it ran by name, counted (a script's commands are logged before it)."""
    runs, current = [], {}
    for words in commands:
        name = words[0].decode().upper()
        if name in ("EVAL", "EVALSHA"):
            runs.append(current)
            current = {}
        else:
            current[name] = current.get(name, 0) + (len(words) - 2 if name == "ZMSCORE" else 1)
    return runs


class WalkBoundsTest(RedisTestCase):
    sign_in = False

    def catalog(self, size: int, late_from: int) -> None:
        """``size`` products by name, those from ``late_from`` on tagged late, the others early."""
        flush_test_redis()
        for n in range(size):
            make_product(f"Item {n:04d}", sku=f"IT-{n}", tags=["late"] if n >= late_from else ["early"])

    def pages(self, query):
        """Each page of ``query`` read as the walk reads it, and as the live list computes it."""
        live = store.list_products(dataclasses.replace(query, limit=1000))
        for offset in (0, 5, len(live.rows) - 3):
            with (
                mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", 0),
                mock.patch.object(walk, "WALK_STEP", STEP),
                commands_logged() as commands,
            ):
                walked = store.list_products(dataclasses.replace(query, offset=offset, limit=3))
            self.assertTrue(walked.counts_of_catalog)
            self.assertEqual(walked.rows, live.rows[offset : offset + 3])
            yield per_script(commands)

    def test_the_walk_goes_on_a_bounded_step_a_call_at_any_size(self):
        if keys.PARTITIONS > 1:
            self.skipTest("several partitions intersect each one's index with the set")
        for size in SIZES:
            with self.subTest(size=size):
                self.catalog(size, size * 3 // 4)  # the products outside the late tag come first by name
                query = store.ProductQuery(order="name", tags_none=("late",), live_counts=True)
                runs = [run for page in self.pages(query) for run in page]
                self.assertTrue(any(run.get("SISMEMBER") for run in runs))
                self.assertLessEqual(max(run.get("SISMEMBER", 0) for run in runs), STEP)
                self.assertFalse(any(run.get("ZINTERSTORE") or run.get("ZDIFFSTORE") for run in runs))

    def test_a_set_whose_products_come_late_is_read_a_slice_a_call_at_any_size(self):
        if keys.PARTITIONS > 1:
            self.skipTest("several partitions intersect each one's index with the set")
        for size in SIZES:
            with self.subTest(size=size), mock.patch.object(walk, "SCAN_STEP", 10):
                self.catalog(size, size * 3 // 4)
                query = store.ProductQuery(order="name", tags_all=("late",), live_counts=True)
                runs = [run for page in self.pages(query) for run in page]
                self.assertTrue(any(run.get("ZMSCORE") for run in runs))  # the set's side was read
                self.assertLessEqual(max(run.get("SISMEMBER", 0) for run in runs), STEP)
                self.assertLessEqual(max(run.get("ZMSCORE", 0) for run in runs), 40)  # a slice: SSCAN's COUNT 10
                self.assertFalse(any(run.get("ZINTERSTORE") for run in runs))
        self.assertEqual(list(client().scan_iter("catalog:*tmp*")), [])


class SeveralSetsBoundsTest(RedisTestCase):
    """A list of several sets too large to count is read from its smallest set a slice a call: the same
    rows and exact total as the live list's, and no whole intersection, at two sizes."""

    sign_in = False

    def catalog(self, size: int) -> None:
        flush_test_redis()
        for n in range(size):
            tags = ["even" if n % 2 == 0 else "odd", *(["third"] if n % 3 == 0 else []), "all"]
            kind = "earbuds" if n % 4 else "game_console"
            make_product(f"Item {n:04d} {'abc' if n % 5 == 0 else 'xyz'}", type=kind, sku=f"IT-{n}", tags=tags)

    def test_several_sets_are_read_a_slice_a_call_at_any_size(self):
        if keys.PARTITIONS > 1:
            self.skipTest("several partitions intersect each one's index with the set")
        queries = [
            store.ProductQuery(type="earbuds", tags_all=("even",)),  # a type's own creation index and a tag
            store.ProductQuery(type="earbuds", tags_all=("even",), order="price"),  # the type's set, and a tag
            store.ProductQuery(tags_all=("even", "third"), order="-name"),
            store.ProductQuery(tags_all=("all",), tags_any=("third", "odd"), tags_none=("even",)),
            store.ProductQuery(q="abc", tags_all=("even",), order="name"),  # a search of one piece, and a tag
            store.ProductQuery(tags_any=("even", "third"), order="price"),  # a union, each product once
            store.ProductQuery(tags_any=("odd", "third"), tags_none=("all",)),  # and none left
            store.ProductQuery(type="game_console", tags_any=("odd", "third"), tags_none=("even",)),
        ]
        for size in (90, 360):
            self.catalog(size)
            for base in queries:
                query = dataclasses.replace(base, live_counts=True)
                live = store.list_products(dataclasses.replace(query, limit=1000))
                self.assertFalse(live.counts_of_catalog)
                for offset in (0, 7):
                    with (
                        self.subTest(size=size, query=query, offset=offset),
                        mock.patch("catalog.store.prefetch.LIVE_COUNT_LIMIT", 0),
                        mock.patch.object(walk, "SCAN_STEP", 10),
                        commands_logged() as commands,
                    ):
                        read = store.list_products(dataclasses.replace(query, offset=offset, limit=5))
                    self.assertTrue(read.counts_of_catalog)
                    self.assertEqual(read.total, live.total)
                    self.assertEqual(read.rows, live.rows[offset : offset + 5])
                    runs = per_script(commands)
                    self.assertTrue(any(run.get("SSCAN") for run in runs), query)  # read from the sets' side
                    self.assertLessEqual(max(run.get("ZMSCORE", 0) for run in runs), 40)  # SSCAN's COUNT 10
                    built = {"ZINTERSTORE", "SINTERSTORE", "SDIFFSTORE", "ZDIFFSTORE", "SUNIONSTORE"}
                    self.assertFalse([words[0] for words in commands if words[0].decode() in built])
        self.assertEqual(list(client().scan_iter("catalog:*tmp*")), [])
