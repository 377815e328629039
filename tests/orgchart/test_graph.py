from unittest import mock

from django.test import tag

from config.redis import client
from orgchart import keys, store
from tests.base import RedisTestCase
from tests.orgchart.helpers import ACTOR, employee, location, org

# Doug at the top; two levels below him, then a third.
SPEC = {
    "Doug": None,
    "Ann": "Doug",
    "Bob": "Doug",
    "Cid": "Ann",
    "Dee": "Ann",
    "Eve": "Bob",
    "Fay": "Cid",
}


def chain(pk: int) -> list[int]:
    return [m.id for m in store.chain_of_command(pk).managers]


class EdgesBothWaysTest(RedisTestCase):
    def test_create_writes_both_sides_of_each_edge_and_the_counts(self):
        seattle = location("Seattle")
        ids = org(SPEC, seattle)
        r = client()
        self.assertEqual(r.hget(keys.employee(ids["Cid"]), "manager"), str(ids["Ann"]))
        self.assertEqual(r.smembers(keys.reports(ids["Ann"])), {str(ids["Cid"]), str(ids["Dee"])})
        self.assertEqual(r.smembers(keys.roots()), {str(ids["Doug"])})
        self.assertEqual(r.scard(keys.staff(seattle)), 7)
        self.assertEqual(r.hget(keys.employee(ids["Fay"]), "location"), str(seattle))
        self.assertEqual(r.hget(keys.employee(ids["Fay"]), "location_name"), "Seattle")
        doug = store.get_employee(ids["Doug"])
        self.assertEqual((doug.direct, doug.total), (2, 6))
        self.assertEqual(chain(ids["Fay"]), [ids["Doug"], ids["Ann"], ids["Cid"]])
        self.assertNotIn("ancestors", r.hgetall(keys.employee(ids["Fay"])))  # only the edges are stored

    def test_bad_input_is_refused_and_writes_nothing_not_even_an_id(self):
        employee("Doug")
        location("Seattle")
        before = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        with self.assertRaises(store.Refused) as caught:
            employee("  doug ")
        self.assertEqual(caught.exception.field, "name")
        with self.assertRaises(store.Refused) as caught:
            employee("Ann", manager=999)
        self.assertEqual(caught.exception.field, "manager")
        with self.assertRaises(store.Refused) as caught:
            location(" SEATTLE ")
        self.assertEqual(caught.exception.field, "name")
        self.assertEqual(before, {k: client().dump(k) for k in client().scan_iter("orgchart:*")})

    def test_change_of_location_updates_both_sides(self):
        a, b = location("Seattle"), location("Austin")
        pk = employee("Doug", location=a)
        store.save_employee(pk, {"name": "Doug", "title": "CEO", "manager": None, "location": b}, actor=ACTOR)
        self.assertEqual(client().smembers(keys.staff(a)), set())
        self.assertEqual(client().smembers(keys.staff(b)), {str(pk)})
        self.assertEqual(store.get_employee(pk).location_name, "Austin")

    def test_renaming_a_location_rewrites_the_copies_on_its_staff(self):
        a = location("Seattle")
        pk = employee("Doug", location=a)
        store.save_location(a, "Tacoma", actor=ACTOR)
        self.assertEqual(store.get_employee(pk).location_name, "Tacoma")
        self.assertIsNone(client().hget(keys.location_by_name(), "seattle"))

    def test_every_write_logs_an_event_in_its_transaction(self):
        employee("Doug")
        ((_, fields),) = client().xrevrange("core:{orgchart}:events", count=1)
        self.assertEqual((fields["verb"], fields["entity"], fields["label"]), ("created", "employee", "Doug"))


class QueriesTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        store.load_scripts()
        self.seattle = location("Seattle")
        self.austin = location("Austin")
        self.ids = org(SPEC, self.seattle)
        store.save_employee(
            self.ids["Fay"],
            {"name": "Fay", "title": "Engineer", "manager": self.ids["Cid"], "location": self.austin},
            actor=ACTOR,
        )

    def test_direct_reports_are_one_round_trip(self):
        with self.assertRoundTrips(1):
            children = store.tree_children(self.ids["Doug"])
        self.assertEqual([(e.name, e.direct, e.total) for e in children], [("Ann", 2, 3), ("Bob", 1, 1)])

    def test_reports_at_depth_are_one_round_trip_whatever_the_depth(self):
        with self.assertRoundTrips(1):
            levels = store.reports_by_depth(self.ids["Doug"], 3)
        names = {v: k for k, v in self.ids.items()}
        self.assertEqual(
            [{names[i] for i in level} for level in levels], [{"Ann", "Bob"}, {"Cid", "Dee", "Eve"}, {"Fay"}]
        )

    def test_reports_at_depth_two_is_the_ebooks_reports_to_star_two(self):
        with self.assertRoundTrips(1):  # the script's walk up and down, beside the SORT of the direct reports
            chain, direct, report = store.employee_detail(self.ids["Doug"], depth=2)
        self.assertEqual([e.name for e in report.at_depth], ["Cid", "Dee", "Eve"])
        self.assertEqual(report.levels, [2, 3])
        self.assertEqual(report.within, 5)

    def test_subtree_size_matches_the_counter(self):
        with self.assertRoundTrips(1):
            levels = store.subtree(self.ids["Doug"])
        self.assertEqual(sum(map(len, levels)), store.get_employee(self.ids["Doug"]).total)

    def test_chain_of_command_is_one_round_trip_within_a_slice(self):
        with self.assertRoundTrips(1):
            chain = store.chain_of_command(self.ids["Fay"])
        self.assertEqual([m.name for m in chain.managers], ["Doug", "Ann", "Cid"])
        self.assertEqual(chain.depth, 3)

    def test_path_goes_through_the_lowest_common_manager(self):
        with self.assertRoundTrips(1):
            path = store.find_path(self.ids["Fay"], self.ids["Eve"])
        self.assertEqual([e.name for e in path.steps], ["Fay", "Cid", "Ann", "Doug", "Bob", "Eve"])
        self.assertEqual(path.common.name, "Doug")
        self.assertEqual(path.degrees, 5)
        self.assertEqual(
            [e.name for e in store.find_path(self.ids["Cid"], self.ids["Dee"]).steps], ["Cid", "Ann", "Dee"]
        )
        self.assertEqual(
            [e.name for e in store.find_path(self.ids["Fay"], self.ids["Ann"]).steps], ["Fay", "Cid", "Ann"]
        )

    def test_staff_of_a_location_reporting_to_someone(self):
        with self.assertRoundTrips(1):  # one script walks Ann's subtree against the staff set
            found = store.staff_reporting_to(self.seattle, self.ids["Ann"])
        self.assertEqual([e.name for e in found], ["Cid", "Dee"])
        self.assertEqual([e.name for e in store.staff_reporting_to(self.austin, self.ids["Doug"])], ["Fay"])


@tag("cluster")
class MoveTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.ids = org(SPEC)

    def test_move_rewrites_sets_chains_and_counts(self):
        store.move_employee(self.ids["Ann"], self.ids["Eve"], actor=ACTOR)
        r = client()
        self.assertEqual(r.smembers(keys.reports(self.ids["Doug"])), {str(self.ids["Bob"])})
        self.assertEqual(r.smembers(keys.reports(self.ids["Eve"])), {str(self.ids["Ann"])})
        self.assertEqual(chain(self.ids["Fay"]), [self.ids[n] for n in ("Doug", "Bob", "Eve", "Ann", "Cid")])
        self.assertEqual(store.get_employee(self.ids["Bob"]).total, 5)
        self.assertEqual(store.get_employee(self.ids["Doug"]).total, 6)
        self.assertEqual(store.get_employee(self.ids["Eve"]).direct, 1)

    def test_moving_under_oneself_or_a_report_is_refused_and_writes_nothing(self):
        before = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        for target in ("Ann", "Cid", "Fay"):
            with self.assertRaises(store.Refused) as caught:
                store.move_employee(self.ids["Ann"], self.ids[target], actor=ACTOR)
            self.assertEqual(caught.exception.field, "manager")
        after = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        self.assertEqual(before, after)

    def test_move_to_the_top(self):
        store.move_employee(self.ids["Cid"], None, actor=ACTOR)
        self.assertIn(str(self.ids["Cid"]), client().smembers(keys.roots()))
        self.assertEqual(chain(self.ids["Fay"]), [self.ids["Cid"]])
        self.assertEqual(store.get_employee(self.ids["Doug"]).total, 4)


class DeleteTest(RedisTestCase):
    def test_delete_hands_the_reports_to_the_successor_in_one_transaction(self):
        where = location("Seattle")
        ids = org(SPEC, where)
        store.delete_employee(ids["Ann"], ids["Bob"], actor=ACTOR)
        r = client()
        self.assertFalse(r.exists(keys.employee(ids["Ann"]), keys.reports(ids["Ann"])))
        self.assertEqual(r.smembers(keys.reports(ids["Bob"])), {str(ids[n]) for n in ("Eve", "Cid", "Dee")})
        self.assertEqual(r.hget(keys.employee(ids["Cid"]), "manager"), str(ids["Bob"]))
        self.assertEqual(chain(ids["Fay"]), [ids["Doug"], ids["Bob"], ids["Cid"]])
        self.assertEqual((store.get_employee(ids["Bob"]).direct, store.get_employee(ids["Bob"]).total), (3, 4))
        self.assertEqual(store.get_employee(ids["Doug"]).total, 5)
        self.assertNotIn(str(ids["Ann"]), r.smembers(keys.staff(where)))
        self.assertIsNone(r.hget(keys.employee_by_name(), "ann"))
        self.assertEqual(r.zlexcount(keys.employee_names(), "-", "+"), 6)

    def test_successor_inside_the_team_is_refused(self):
        ids = org(SPEC)
        with self.assertRaises(store.Refused):
            store.delete_employee(ids["Ann"], ids["Fay"], actor=ACTOR)
        self.assertTrue(client().exists(keys.employee(ids["Ann"])))

    def test_delete_with_nobody_taking_over_makes_the_reports_tops(self):
        ids = org(SPEC)
        store.delete_employee(ids["Doug"], None, actor=ACTOR)
        self.assertEqual(client().smembers(keys.roots()), {str(ids["Ann"]), str(ids["Bob"])})
        self.assertEqual(chain(ids["Fay"]), [ids["Ann"], ids["Cid"]])


@tag("cluster")
class FlatRepliesTest(RedisTestCase):
    """Every read script answers one flat array: Redis 6.2 writes each nested table of a Lua reply
    to the socket by a write() of its own (and the client reads it by a recv() of its own)."""

    def test_every_read_script_answers_a_flat_array(self):
        import random

        from config.redis import on_cluster
        from config.redis.cluster import TracedClusterPipeline
        from config.redis.traced import TracedPipeline
        from orgchart import sensorfeed

        store.load_scripts()
        seattle = location("Seattle")
        ids = org(SPEC, seattle)
        sensorfeed.feed(seattle, 1_767_589_200, 2, 600, random.Random(1))
        pipeline_class = TracedClusterPipeline if on_cluster() else TracedPipeline
        replies, original = [], pipeline_class.execute

        def execute(pipe, raise_on_error=True):
            names = [str(args[0]).upper() for args, _ in pipe.command_stack]
            out = original(pipe, raise_on_error)
            replies.extend(reply for name, reply in zip(names, out) if name == "EVALSHA")
            return out

        with mock.patch.object(pipeline_class, "execute", execute):
            for path in (
                "/orgchart/employees/",
                f"/orgchart/employees/{ids['Doug']}/?depth=3",
                "/orgchart/locations/",
                f"/orgchart/locations/{seattle}/?under=Doug",
            ):
                self.assertEqual(self.client.get(path).status_code, 200)
            store.subtree(ids["Doug"])
            store.chain_of_command(ids["Fay"])
            store.find_path(ids["Fay"], ids["Eve"])
        self.assertGreaterEqual(len(replies), 8)
        for reply in replies:
            self.assertIsInstance(reply, list)
            self.assertFalse([value for value in reply if isinstance(value, list)], reply)
