"""A chain of command of any depth costs a page the same bounded work: counted at two depths,
1,000 and 30,000 managers deep (one import each), never timed.

Each page view is counted at the server (INFO commandstats counts the commands a script runs too),
so a script that walked the whole chain would show as thirty times the work at the deeper one.
"""

import re

from django.test import override_settings
from django.urls import reverse

from config import trace
from config.redis import client
from orgchart import conf, keys, scale, store
from orgchart.store import measure
from tests.base import RedisTestCase

SHALLOW, DEEP = 1_000, 30_000
PAGE_BYTES = 64 * 1024  # an employee page or a path of any depth stays under this


class DeepChainTest(RedisTestCase):
    """Two chains side by side: ``a0`` over ``a1`` ... over ``ahead`` (1,000 managers above it), and
    ``b0`` ... ``bhead`` (30,000), each imported through the org chart's own bulk import."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.shallow, cls.deep = scale.chain(SHALLOW, 1, "a"), scale.chain(DEEP, 1, "b")

    def setUp(self):
        super().setUp()
        self.ids = {**scale.load(self.shallow), **scale.load(self.deep)}
        self.bottom = {SHALLOW: self.ids["ahead"], DEEP: self.ids["bhead"]}
        self.top = {SHALLOW: self.ids["a0"], DEEP: self.ids["b0"]}

    def cost(self, path: str) -> tuple[object, int, int]:
        """The response to a GET of ``path``, the commands the server ran for it and its round trips."""
        before = measure.commands_run()
        with trace.recording() as recorded:
            response = self.client.get(path)
        commands = measure.commands_run() - before
        self.assertEqual(response.status_code, 200, path)
        return response, commands, recorded.wave_count("data")

    def at_both_depths(self, url) -> dict[int, tuple[object, int, int]]:
        return {depth: self.cost(url(depth)) for depth in (SHALLOW, DEEP)}

    def test_the_employee_page_does_the_same_work_at_both_depths(self):
        seen = self.at_both_depths(lambda d: reverse("orgchart:employee_detail", args=[self.bottom[d]]))
        (shallow, shallow_commands, shallow_trips), (deep, deep_commands, deep_trips) = seen.values()
        self.assertEqual(shallow_commands, deep_commands)
        self.assertEqual((shallow_trips, deep_trips), (1, 1))
        for depth, (response, _, _) in seen.items():
            self.assertLess(len(response.content), PAGE_BYTES)
            self.assertContains(response, f'<dd id="depth-value">more than {store.CHAIN_SHOWN}</dd>', html=True)
            chain = response.content.decode().split('id="chain"')[1].split("</ol>")[0]
            self.assertEqual(chain.count('<li><a href="/orgchart/employees/'), store.CHAIN_SHOWN)
            prefix = "a" if depth == SHALLOW else "b"
            farthest = self.ids[f"{prefix}{depth - store.CHAIN_SHOWN}"]
            self.assertContains(response, reverse("orgchart:employee_chain", args=[farthest]))
            self.assertEqual(response.context["chain"].managers[-1].id, self.ids[f"{prefix}{depth - 1}"])

    def test_the_chain_pages_walk_up_a_page_at_a_time(self):
        seen = self.at_both_depths(lambda d: reverse("orgchart:employee_chain", args=[self.bottom[d]]))
        (shallow, shallow_commands, _), (deep, deep_commands, _) = seen.values()
        self.assertEqual(shallow_commands, deep_commands)
        for response in (shallow, deep):
            self.assertEqual(len(response.context["chain"].managers), store.CHAIN_PAGE)
            self.assertLess(len(response.content), PAGE_BYTES)
        # Following "More above" to the top of the shallow chain: every manager once, in order.
        url, walked = reverse("orgchart:employee_chain", args=[self.bottom[SHALLOW]]), []
        while url:
            response = self.client.get(url)
            walked = [e.id for e in response.context["chain"].managers] + walked
            more = re.search(r'<p class="hint" id="chain-more">.*?<a href="([^"]+)"', response.content.decode())
            url = more.group(1) if more else ""
        self.assertEqual(walked, [self.ids[f"a{i}"] for i in range(SHALLOW)])

    def test_the_delete_and_move_pages_read_only_the_nearest_manager(self):
        seen = self.at_both_depths(lambda d: reverse("orgchart:employee_delete", args=[self.bottom[d]]))
        (_, shallow_commands, _), (deep, deep_commands, _) = seen.values()
        self.assertEqual(shallow_commands, deep_commands)
        self.assertContains(deep, f'value="B{DEEP - 1}"')  # the successor offered: the nearest manager
        costs = []
        for depth in (SHALLOW, DEEP):
            before = measure.commands_run()
            url = reverse("orgchart:employee_move", args=[self.bottom[depth]])
            response = self.client.post(url, {"manager": ""})
            costs.append(measure.commands_run() - before)
            self.assertContains(response, "will no longer report to")
        self.assertEqual(costs[0], costs[1])

    def path_cost(self, depth: int) -> tuple[object, int, int]:
        query = f"?a=%23{self.bottom[depth]}&b=%23{self.top[depth]}"
        before = measure.commands_run()
        with trace.recording() as recorded:
            response = self.client.get(reverse("orgchart:path") + query)
        calls = sum(c.name == "EVALSHA" for trip in recorded.trips("data") for c in trip.commands)
        return response, measure.commands_run() - before, calls

    def test_a_path_walks_a_bounded_slice_per_call_and_shows_its_ends(self):
        step = conf.climb_slice()
        # Per script call: a slice of managers above each end (an HGET each), the rows of the ends
        # shown and a few checks, whatever the depth; only the number of calls grows with it.
        per_call = 2 * (step + 1) + 3 * store.PATH_SHOWN + 10
        for depth, calls_expected in ((SHALLOW, SHALLOW // step), (DEEP, DEEP // step)):
            response, commands, calls = self.path_cost(depth)
            self.assertEqual(response.context["path"].degrees, depth)
            self.assertEqual(calls, calls_expected)
            self.assertLessEqual(commands, calls * per_call)
            self.assertLess(len(response.content), PAGE_BYTES)
            self.assertContains(response, f"{depth} degrees of separation")
            self.assertContains(response, f"… {depth - store.PATH_SHOWN} more steps …")

    def test_the_whole_chain_is_read_a_slice_per_call(self):
        chain = store.chain_of_command(self.bottom[DEEP])
        self.assertEqual([m.id for m in chain.managers], [self.ids[f"b{i}"] for i in range(DEEP)])
        self.assertIsNone(chain.above)
        path = store.find_path(self.ids["b29990"], self.bottom[DEEP])  # a short way, deep down
        self.assertEqual([e.name for e in path.steps], ["B29990", *(f"B{i}" for i in range(29991, DEEP)), "BHEAD"])


class PathAcrossTwoLongLegsTest(RedisTestCase):
    """Two long legs below one manager: the walks go on until they meet, and the page shows the
    steps nearest each end with the common manager between them."""

    @override_settings(ORGCHART_CLIMB_SLICE=7)
    def test_the_walks_meet_past_several_slices(self):
        left, right = scale.load(scale.chain(40, 1, "l")), scale.load(scale.chain(25, 1, "r"))
        # Put the right chain's top under the left chain's l5: the common manager is l5.
        store.move_employee(right["r0"], left["l5"], actor=store.Actor("t"))
        path = store.find_path(left["lhead"], right["rhead"])
        self.assertEqual(path.common.id, left["l5"])
        self.assertEqual(path.degrees, (40 - 5) + (25 + 1))
        self.assertEqual([e.name for e in path.up], ["LHEAD", *(f"L{i}" for i in range(39, 30, -1))])
        self.assertEqual([e.name for e in path.down], [*(f"R{i}" for i in range(16, 25)), "RHEAD"])
        self.assertEqual((path.up_hidden, path.down_hidden), (35 - 10, 26 - 10))
        other = scale.load(scale.chain(3, 1, "x"))
        self.assertIsNone(store.find_path(left["lhead"], other["xhead"]))  # separate trees

    @override_settings(ORGCHART_CLIMB_SLICE=3)
    def test_a_cycle_written_behind_the_stores_back_ends_every_walk(self):
        ids = scale.load(scale.chain(10, 1, "c"))
        other = scale.load(scale.chain(2, 1, "x"))
        client().hset(keys.employee(ids["c0"]), "manager", ids["chead"])  # check_integrity reports it
        chain = store.chain_of_command(ids["chead"])
        self.assertEqual(len(chain.managers), 10)  # each manager once, then the walk stops
        self.assertIsNone(store.find_path(ids["chead"], other["xhead"]))
        path = self.client.get(reverse("orgchart:path") + f"?a=%23{ids['c5']}&b=%23{ids['c2']}")
        self.assertEqual(path.status_code, 200)
