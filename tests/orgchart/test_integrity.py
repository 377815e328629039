import threading

import redis

from config.invariants import violations
from config.redis import client
from orgchart import keys, store
from orgchart.integrity import _repair_rollups
from orgchart.store import checks as audit
from tests.base import RedisTestCase, flush_test_redis, run_concurrently
from tests.orgchart.helpers import ACTOR, location, org
from tests.orgchart.test_graph import SPEC


def messages():
    return [f"{inv.name}: {v.message}" for inv, v in violations(["orgchart"])]


class InvariantsTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.where = location("Seattle")
        self.ids = org(SPEC, self.where)

    def test_a_consistent_graph_has_no_violation(self):
        store.move_employee(self.ids["Ann"], self.ids["Eve"], actor=ACTOR)
        store.delete_employee(self.ids["Bob"], self.ids["Doug"], actor=ACTOR)
        self.assertEqual(messages(), [])

    def test_a_stray_report_edge_is_found_and_repaired(self):
        client().sadd(keys.reports(self.ids["Eve"]), self.ids["Fay"])
        self.assertTrue(any("report set" in m for m in messages()))
        audit.rebuild()
        self.assertEqual(messages(), [])

    def test_a_cycle_is_found_and_broken(self):
        client().hset(keys.employee(self.ids["Doug"]), "manager", self.ids["Fay"])
        found = messages()
        self.assertTrue(any("cycle through employees" in m for m in found), found)
        audit.rebuild()
        self.assertEqual(messages(), [])

    def test_a_stale_count_and_staff_set_are_found(self):
        client().hincrby(keys.employee(self.ids["Doug"]), "total", 1)
        client().srem(keys.staff(self.where), self.ids["Eve"])
        found = messages()
        self.assertTrue(any("direct/total" in m for m in found), found)
        self.assertTrue(any("staff set" in m for m in found), found)
        audit.rebuild()
        self.assertEqual(messages(), [])

    def test_the_staff_name_index_follows_renames_moves_and_deletes(self):
        austin = location("Austin")
        values = {"name": "Zed", "title": "Engineer", "location": austin, "manager": self.ids["Doug"]}
        store.save_employee(self.ids["Ann"], values, actor=ACTOR, old_name="Ann")  # renamed and moved
        store.delete_employee(self.ids["Bob"], None, actor=ACTOR, name="Bob")
        self.assertEqual(messages(), [])
        store.delete_location(austin, self.where, actor=ACTOR)  # Zed moves back to Seattle
        self.assertEqual(messages(), [])
        overview = store.location_overview(self.where, 0, 3)
        self.assertEqual([e.name for e in overview.staff], ["Cid", "Dee", "Doug"])
        self.assertEqual(overview.staff_count, 6)
        self.assertEqual([e.name for e in store.location_overview(self.where, 3, 3).staff], ["Eve", "Fay", "Zed"])

    def test_a_stale_staff_name_index_is_found_and_rebuilt(self):
        client().zrem(keys.staff_names(self.where), f"eve\0{self.ids['Eve']}")
        self.assertTrue(any("staff name index" in m for m in messages()), messages())
        audit.rebuild()
        self.assertEqual(messages(), [])


class ConcurrentMovesTest(RedisTestCase):
    """Moves from many threads at once, including pairs that would close a cycle together
    (A under B while B goes under A): WATCH makes one of each pair retry and be refused."""

    def test_concurrent_moves_keep_the_tree_acyclic_and_symmetric(self):
        ids = list(org({f"E{i}": (f"E{(i - 1) // 2}" if i else None) for i in range(31)}).values())
        pairs = [(ids[a], ids[b]) for a, b in [(3, 4), (4, 3), (7, 8), (8, 7), (1, 2), (2, 1), (5, 9), (9, 5)]]
        pairs += [(ids[a], ids[b]) for a, b in [(15, 16), (16, 17), (17, 15), (10, 20), (20, 10), (11, 30)]]
        outcomes, barrier = [], threading.Barrier(len(pairs))

        def move(pk, boss):
            barrier.wait()
            for _ in range(5):
                try:
                    store.move_employee(pk, boss, actor=ACTOR)
                    outcomes.append("moved")
                except store.Refused:
                    outcomes.append("refused")
                except (store.Busy, redis.WatchError):
                    outcomes.append("busy")
                boss, pk = pk, boss  # and back the other way round

        run_concurrently(move, pairs)
        self.assertIn("moved", outcomes)
        self.assertIn("refused", outcomes)
        self.assertEqual(messages(), [])
        snap = audit.snapshot()
        self.assertEqual(sum(1 for row in snap.employees.values() if not row["manager"]), len(snap.roots))


class RollupRepairTest(RedisTestCase):
    def test_a_tampered_rollup_is_found_and_recomputed(self):
        where = location("Seattle")
        start = 1767600000  # 2026-01-05 08:00 UTC
        store.record_readings(where, [(start + 6 * i, 20 + (i % 7) / 10) for i in range(1200)])
        self.assertEqual(messages(), [])
        client().hincrby(keys.temp_rollup(where, "hour", "2026010508"), "sum", 5)
        client().hset(keys.temp_rollup(where, "month", "202601"), "max", 9999)
        found = messages()
        self.assertEqual(len(found), 3, found)  # the hour, its day (from kept hours), the month
        _repair_rollups()
        self.assertEqual(messages(), [])


class RollupCheckCostTest(RedisTestCase):
    def scans(self, places: int) -> int:
        """SCAN calls of the rollups check with ``places`` locations' sensors holding a day each."""
        from config import trace
        from orgchart.integrity import rollups_match_samples

        for n in range(places):
            store.record_readings(location(f"Site {n}"), [(1767571200 + 600 * i, 20.0) for i in range(144)])
        with trace.recording() as recorded:
            self.assertEqual(list(rollups_match_samples()), [])
        return sum(c.name == "SCAN" for t in recorded.trips("data") for c in t.commands)

    def test_the_check_scans_the_keyspace_once_however_many_locations(self):
        one = self.scans(1)
        flush_test_redis()  # an empty keyspace again
        self.assertEqual(self.scans(6), one)


class RetentionTest(RedisTestCase):
    def test_a_bucket_without_ttl_is_found_and_given_one(self):
        from orgchart.integrity import _expire_buckets

        where = location("Seattle")
        store.record_readings(where, [(1767600000, 20.0)])
        self.assertEqual(messages(), [])
        client().persist(keys.temp_raw(where, "2026010508"))
        self.assertEqual(len(messages()), 1)
        _expire_buckets()
        self.assertEqual(messages(), [])
        self.assertGreater(client().ttl(keys.temp_raw(where, "2026010508")), 0)
