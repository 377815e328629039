"""Every org chart write is one script call (two where a new id is drawn), and a move costs the
depth of the tree, never the size of the subtree it moves: counted, never timed."""

import time

from django.test import override_settings, tag

from config import trace
from config.redis import client
from orgchart import keys, scale, store
from orgchart.store import measure
from tests.base import RedisTestCase, run_concurrently
from tests.orgchart.helpers import ACTOR, employee, location, org
from tests.orgchart.test_graph import SPEC


@tag("cluster")
class OneRoundTripPerWriteTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        store.load_scripts()
        self.where = location("Seattle")
        self.ids = org(SPEC, self.where)

    def test_a_move_is_one_script_call(self):
        with self.assertRoundTrips(1) as recorded, self.assertCommands(1):
            store.move_employee(self.ids["Cid"], self.ids["Bob"], actor=ACTOR)
        (command,) = recorded.trips("data")[0].commands
        self.assertEqual(command.name, "EVALSHA")
        self.assertIn(str(self.ids["Cid"]), client().smembers(keys.reports(self.ids["Bob"])))

    def test_a_hire_draws_its_id_then_writes_in_one_script(self):
        with self.assertRoundTrips(2), self.assertCommands(2):
            pk = employee("Gus", self.ids["Eve"], self.where)
        self.assertEqual(store.get_employee(self.ids["Doug"]).total, 7)
        self.assertEqual(client().get(keys.employee_ids()), str(pk))

    def test_a_refused_hire_draws_no_id(self):
        before = client().get(keys.employee_ids())
        for values in ({"name": "doug"}, {"name": "Gus", "manager": 999}, {"name": "Gus", "location": 999}):
            with self.assertRaises(store.Refused), self.assertRoundTrips(1):
                store.save_employee(None, {"name": "x", **values}, actor=ACTOR)
        self.assertEqual(client().get(keys.employee_ids()), before)

    def test_an_edit_and_a_delete_are_one_script_call_each(self):
        values = {"name": "Cid", "title": "Lead", "manager": self.ids["Bob"], "location": None}
        with self.assertRoundTrips(1), self.assertCommands(1):
            store.save_employee(self.ids["Cid"], values, actor=ACTOR)
        with self.assertRoundTrips(1), self.assertCommands(1):
            store.delete_employee(self.ids["Ann"], self.ids["Bob"], actor=ACTOR, name="Ann")  # the name shown
        self.assertEqual(store.get_employee(self.ids["Bob"]).total, 4)
        with self.assertRoundTrips(2):  # the name not given: the script answers with it, then deletes
            store.delete_employee(self.ids["Cid"], None, actor=ACTOR)

    def test_location_writes(self):
        with self.assertRoundTrips(2):
            other = location("Austin")
        with self.assertRoundTrips(1):
            store.save_location(other, "Denver", actor=ACTOR)
        with self.assertRoundTrips(2):  # the graph's script and the sensor's span, then its tombstone
            store.delete_location(self.where, other, actor=ACTOR)
        self.assertEqual(client().scard(keys.staff(other)), 7)


class MoveCostTest(RedisTestCase):
    """The same move at two subtree sizes under the same depth runs the same commands."""

    def move_cost(self, prefix: str, depth: int, below: int) -> tuple[int, list[str]]:
        data = scale.chain(depth, below, prefix)
        ids = scale.load(data)
        other = scale.load(scale.chain(depth, 1, prefix + "x"))
        head, target = ids[f"{prefix}head"], other[f"{prefix}x{depth - 1}"]
        with trace.recording() as recorded:
            _, cost = scale.cost(lambda: store.move_employee(head, target, actor=ACTOR))
        (move,) = [trip for trip in recorded.trips("data") if trip.commands[0].name == "EVALSHA"]
        self.assertEqual(store.get_employee(target).total, below + 1)
        return cost.commands, move.commands[0].keys

    def test_a_move_costs_the_depth_not_the_subtree(self):
        store.load_scripts()
        small, small_keys = self.move_cost("s", 6, 10)
        large, large_keys = self.move_cost("l", 6, 1000)
        self.assertEqual(small, large)
        self.assertEqual(len(small_keys), len(large_keys))
        deeper, _ = self.move_cost("d", 24, 10)
        self.assertGreater(deeper, small)  # the walks up are longer: it grows with the depth
        self.assertEqual((deeper - small) % 18, 0)  # by the same few commands per level


class ServerCountTest(RedisTestCase):
    def test_a_quiet_second_counts_no_command(self):
        """A replica acknowledges its primary once a second (REPLCONF ACK, on the cluster): that is
        replication, not work, and a count that took it in would move with the clock."""
        before = measure.commands_run()
        time.sleep(1.5)
        self.assertEqual(measure.commands_run() - before, 0)


@tag("cluster")
class SubtreeReadTest(RedisTestCase):
    def test_one_round_trip_within_the_budget_whatever_the_depth(self):
        store.load_scripts()
        ids = scale.load(scale.chain(40, 50))
        with self.assertRoundTrips(1):
            levels = store.subtree(ids["c0"])
        self.assertEqual(len(levels), 42)
        self.assertEqual(sum(map(len, levels)), store.get_employee(ids["c0"]).total)

    @override_settings(ORGCHART_WALK_BUDGET=25)
    def test_a_large_subtree_is_one_bounded_script_call_then_a_pipeline_a_level(self):
        store.load_scripts()
        ids = scale.load(scale.build(300))
        top = ids["p0"]
        with trace.recording() as recorded:
            levels = store.subtree(top)
        self.assertEqual(sum(map(len, levels)), 299)
        self.assertEqual(len(set().union(*levels)), 299)
        first, *rest = recorded.trips("data")
        self.assertEqual([c.name for c in first.commands], ["EVALSHA"])
        # Past the script's budget, one pipeline a level (the walk goes on from two levels at
        # once, the one the budget cut and the one below it): 5 round trips for 5 levels.
        self.assertEqual(len(levels), 5)
        self.assertEqual(len(rest), 4)
        self.assertEqual({trip.kind for trip in rest}, {"pipeline"})
        sets = [key for trip in rest for c in trip.commands for key in c.keys]
        self.assertEqual({c.name for trip in rest for c in trip.commands}, {"EVALSHA"})  # SCARDs, then a SUNION
        self.assertLessEqual(max(len(c.keys) for trip in rest for c in trip.commands), 25 // 4)
        # Each person's report set is read once: 6 by the script within its 25 steps (the chief's
        # and 4 vice presidents' sets and the 18 people in them, then one set more: a SUNION reads
        # a quarter of the budget left, at least one set), 294 after it.
        self.assertEqual(len(sets), 294)
        self.assertEqual(len(set(sets)), 294)
        self.assertNotIn(keys.reports(top), sets)
        with self.assertRoundTrips(1):
            chain, _, report = store.employee_detail(top, store.MAX_DEPTH)
        self.assertTrue(report.cut)  # the page says its counts are lower bounds
        self.assertLess(report.within, 299)


class SubtreeChunkTest(RedisTestCase):
    def test_past_the_budget_a_call_reads_at_most_128_report_sets(self):
        store.load_scripts()
        ids = scale.load(scale.build(3000))
        with trace.recording() as recorded:
            levels = store.subtree(ids["p0"])
        self.assertEqual(sum(map(len, levels)), 2999)
        first, *rest = recorded.trips("data")
        self.assertEqual([c.name for c in first.commands], ["EVALSHA"])
        read = [c.keys for trip in rest for c in trip.commands]
        self.assertEqual(max(map(len, read)), 128)  # a quarter of the budget would be 250
        sets = [key for keys_ in read for key in keys_]
        self.assertEqual(len(set(sets)), len(sets))  # each report set read once


class BulkImportLoadsScriptsTest(RedisTestCase):
    def test_the_first_read_after_a_bulk_import_is_one_round_trip(self):
        client().script_flush()
        ids = scale.load(scale.build(50))  # the bulk path, as seeding and the benchmark take it
        with self.assertRoundTrips(1), self.assertCommands(1):
            levels = store.reports_by_depth(ids["p0"], 2)
        self.assertEqual(len(levels), 2)


class StaleEditTest(RedisTestCase):
    """Every employee and location carries a version, counted by each change of what its edit form
    shows: a save made on an older one is refused with the stored document and writes nothing."""

    def setUp(self):
        super().setUp()
        self.where = location("Seattle")
        self.ids = org(SPEC, self.where)

    def values(self, name: str, **changes) -> dict:
        employee = store.get_employee(self.ids[name])
        return {"name": employee.name, "title": employee.title, "manager": employee.manager,
                "location": employee.location, "full_time": employee.full_time, **changes}  # fmt: skip

    def test_a_new_employee_or_location_is_at_version_one_and_each_save_counts_one(self):
        cid = self.ids["Cid"]
        self.assertEqual(client().hget(keys.employee(cid), "version"), "1")
        self.assertEqual(client().hget(keys.location(self.where), "version"), "1")
        store.save_employee(cid, self.values("Cid", title="Lead"), actor=ACTOR, version="1")
        store.save_location(self.where, "Tacoma", actor=ACTOR, version="1")
        self.assertEqual(store.get_employee(cid).version, 2)
        self.assertEqual(store.get_location(self.where).version, 2)

    def test_a_stale_save_is_refused_with_the_stored_document_and_writes_nothing(self):
        cid = self.ids["Cid"]
        store.save_employee(cid, self.values("Cid", title="Lead"), actor=ACTOR, version="1")
        store.save_location(self.where, "Tacoma", actor=ACTOR, version="1")
        before = {key: client().dump(key) for key in client().scan_iter("*")}
        with self.assertRaises(store.EditConflict) as caught:
            store.save_employee(cid, self.values("Cid", title="Intern"), actor=ACTOR, version="1")
        self.assertEqual((caught.exception.current.title, caught.exception.current.version), ("Lead", 2))
        with self.assertRaises(store.EditConflict) as caught:
            store.save_location(self.where, "Austin", actor=ACTOR, version="1")
        self.assertEqual((caught.exception.current.name, caught.exception.current.version), ("Tacoma", 2))
        self.assertEqual({key: client().dump(key) for key in client().scan_iter("*")}, before)

    def test_a_write_to_an_employee_or_location_deleted_meanwhile_is_not_found_and_writes_nothing(self):
        fay = self.ids["Fay"]
        values = self.values("Fay", title="Lead")
        store.delete_employee(fay, None, actor=ACTOR, name="Fay")
        other = location("Austin")
        store.delete_location(other, None, actor=ACTOR)
        before = {key: client().dump(key) for key in client().scan_iter("*")}
        with self.assertRaises(store.NotFound):
            store.save_employee(fay, values, actor=ACTOR, version="1", old_name="Fay")
        with self.assertRaises(store.NotFound):
            store.save_location(other, "Denver", actor=ACTOR, version="1")
        with self.assertRaises(store.NotFound):
            store.move_employee(fay, self.ids["Bob"], actor=ACTOR)
        with self.assertRaises(store.NotFound):
            store.delete_employee(fay, None, actor=ACTOR, name="Fay")
        with self.assertRaises(store.NotFound):
            store.delete_location(other, None, actor=ACTOR)
        self.assertEqual({key: client().dump(key) for key in client().scan_iter("*")}, before)

    def test_moves_and_deletes_that_change_an_employee_count_a_version(self):
        cid, dee = self.ids["Cid"], self.ids["Dee"]
        store.move_employee(cid, self.ids["Bob"], actor=ACTOR)
        self.assertEqual(store.get_employee(cid).version, 2)
        reports = client().smembers(keys.reports(cid))
        store.delete_employee(cid, self.ids["Bob"], actor=ACTOR, name="Cid")  # its reports move to Bob
        for pk in reports:
            self.assertEqual(store.get_employee(int(pk)).version, 2)
        staff = client().smembers(keys.staff(self.where))
        versions = {pk: store.get_employee(int(pk)).version for pk in staff}
        store.delete_location(self.where, None, actor=ACTOR)  # its staff lose their location
        for pk in staff:
            self.assertEqual(store.get_employee(int(pk)).version, versions[pk] + 1)
        # An edit form opened before those changes is stale.
        with self.assertRaises(store.EditConflict):
            store.save_employee(dee, self.values("Dee", title="Lead"), actor=ACTOR, version="1")

    def test_concurrent_saves_made_on_one_version_one_wins_and_no_update_is_lost(self):
        """Eight people save the same employee, each from a form opened at version 1, all at once:
        exactly one save is written and the seven others are refused, so none is lost silently."""
        cid = self.ids["Cid"]
        store.load_scripts()
        outcomes: dict[str, str] = {}

        def save(title: str):
            try:
                store.save_employee(cid, self.values("Cid", title=title), actor=ACTOR, version="1", old_name="Cid")
            except store.EditConflict as conflict:
                outcomes[title] = f"refused at {conflict.current.version}"
            else:
                outcomes[title] = "saved"

        titles = [f"Title {n}" for n in range(8)]
        run_concurrently(save, [(title,) for title in titles])
        saved = [title for title, outcome in outcomes.items() if outcome == "saved"]
        self.assertEqual(len(saved), 1, outcomes)
        self.assertEqual(sorted(o for o in outcomes.values() if o != "saved"), ["refused at 2"] * 7)
        stored = store.get_employee(cid)
        self.assertEqual((stored.title, stored.version), (saved[0], 2))
