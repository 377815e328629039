"""Every write to the org chart is bounded at any shape: a chain of command has at most
``ORGCHART_MAX_DEPTH`` levels, which the add and move forms and the delete refuse to exceed, beside
their field and writing nothing, and no write script walks further than that many managers, so a
write at the bottom of a chain any deeper (data bulk-loaded before the limit) is refused after the
same bounded work. Counted at the server (INFO commandstats counts the commands a script runs too)
at two sizes, never timed.
"""

from django.test import override_settings

from config.invariants import violations
from config.redis import client
from orgchart import keys, scale, store
from orgchart.store import measure
from tests.base import RedisTestCase
from tests.orgchart.helpers import ACTOR, employee

LIMIT = 40


def snapshot() -> dict:
    return {k: client().dump(k) for k in client().scan_iter("orgchart:*")}


@override_settings(ORGCHART_MAX_DEPTH=LIMIT)
class DepthLimitTest(RedisTestCase):
    """``c0`` over ``c1`` ... over ``chead``, at level ``LIMIT`` (the deepest allowed), and a team
    ``t0`` over ``t1`` over ``t2`` beside it (three levels)."""

    def setUp(self):
        super().setUp()
        self.ids = scale.load(scale.chain(LIMIT - 1, 1, "c"))
        self.team = {name: employee(name.upper(), None) for name in ("t0",)}
        self.team["t1"] = employee("T1", self.team["t0"])
        self.team["t2"] = employee("T2", self.team["t1"])

    def level(self, n: int) -> int:
        """The id of the chain's person at level ``n`` (the top is level 1)."""
        return self.ids["chead"] if n == LIMIT else self.ids[f"c{n - 1}"]

    def test_the_add_form_refuses_a_hire_below_the_deepest_level_and_writes_nothing(self):
        before = snapshot()
        response = self.client.post(
            "/orgchart/employees/add/", {"name": "Deep", "manager": f"#{self.level(LIMIT)}", "location": ""}
        )
        self.assertContains(response, f"is at the deepest level the org chart allows ({LIMIT} levels)")
        self.assertContains(response, 'id="id_manager-error"')
        self.assertEqual(snapshot(), before)  # no id drawn either
        response = self.client.post(
            "/orgchart/employees/add/", {"name": "Deep", "manager": f"#{self.level(LIMIT - 1)}", "location": ""},
            follow=True,
        )  # fmt: skip
        self.assertContains(response, "Saved Deep.")
        self.assertEqual(violations(["orgchart"]), [])

    def test_the_move_form_refuses_a_team_that_would_go_too_deep_and_writes_nothing(self):
        url = f"/orgchart/employees/{self.team['t0']}/move/"
        before = snapshot()
        response = self.client.post(url, {"manager": f"#{self.level(LIMIT - 2)}"})  # t2 would be at LIMIT + 1
        self.assertContains(response, f"more than {LIMIT} levels down the chain of command", status_code=400)
        self.assertEqual(snapshot(), before)
        response = self.client.post(url, {"manager": f"#{self.level(LIMIT - 3)}"}, follow=True)  # t2 at LIMIT
        self.assertContains(response, "Moved T0 under")
        self.assertEqual(violations(["orgchart"]), [])

    def test_the_depth_of_a_team_follows_every_move_exactly(self):
        """The heights index is kept up the chain by each write: once t2 leaves, the team t0 heads is
        one level shallower and fits one level lower; once t2 is back under t1, it no longer does."""
        t0, t1, t2 = self.team["t0"], self.team["t1"], self.team["t2"]
        with self.assertRaises(store.Refused):
            store.move_employee(t0, self.level(LIMIT - 2), actor=ACTOR)
        store.move_employee(t2, None, actor=ACTOR)
        self.assertEqual(client().zrange(keys.report_heights(t0), 0, -1), [])
        store.move_employee(t0, self.level(LIMIT - 2), actor=ACTOR)  # t1 at LIMIT
        with self.assertRaises(store.Refused) as refused:
            store.move_employee(t2, t1, actor=ACTOR)
        self.assertEqual(refused.exception.field, "manager")
        store.move_employee(t0, None, actor=ACTOR)
        store.move_employee(t2, t1, actor=ACTOR)
        self.assertEqual(client().zrange(keys.report_heights(t0), 0, -1, withscores=True), [(str(t1), 1.0)])
        self.assertEqual(violations(["orgchart"]), [])

    def test_a_delete_refuses_a_successor_that_would_put_the_reports_too_deep(self):
        t0, t1 = self.team["t0"], self.team["t1"]
        before = snapshot()
        with self.assertRaises(store.Refused) as refused:  # t1's report would be at LIMIT + 1
            store.delete_employee(t1, self.level(LIMIT), actor=ACTOR, name="T1")
        self.assertEqual(refused.exception.field, "successor")
        self.assertEqual(snapshot(), before)
        store.delete_employee(t0, self.level(LIMIT - 2), actor=ACTOR, name="T0")  # t2 lands at LIMIT
        self.assertEqual(violations(["orgchart"]), [])


@override_settings(ORGCHART_MAX_DEPTH=LIMIT)
class BoundedWritesTest(RedisTestCase):
    """Chains 1,000 and 4,000 deep, bulk-loaded (no limit on that path): a write at the bottom walks at
    most ``LIMIT`` managers, so it does the same work at both depths."""

    SHALLOW, DEEP = 1_000, 4_000

    def setUp(self):
        super().setUp()
        self.ids = {**scale.load(scale.chain(self.SHALLOW, 1, "a")), **scale.load(scale.chain(self.DEEP, 1, "b"))}
        self.bottom = {self.SHALLOW: self.ids["ahead"], self.DEEP: self.ids["bhead"]}
        self.names = {self.ids["ahead"]: "AHEAD", self.ids["bhead"]: "BHEAD"}

    def commands(self, write) -> int:
        before = measure.commands_run()
        with self.assertRaises(store.Refused):
            write()
        return measure.commands_run() - before

    def test_writes_at_the_bottom_of_a_deeper_chain_do_the_same_bounded_work(self):
        spare = employee("Spare")
        seen = {}
        for depth, bottom in self.bottom.items():
            seen[depth] = (
                self.commands(lambda b=bottom: store.move_employee(b, spare, actor=ACTOR)),
                self.commands(lambda b=bottom: store.move_employee(spare, b, actor=ACTOR)),
                self.commands(lambda b=bottom: employee(f"New{b}", b)),
                self.commands(lambda b=bottom: store.delete_employee(b, spare, actor=ACTOR, name=self.names[b])),
            )
        self.assertEqual(seen[self.SHALLOW], seen[self.DEEP])
        for count in seen[self.DEEP]:
            self.assertLess(count, 3 * LIMIT)

    def test_an_allowed_move_grows_with_the_depth_up_to_the_limit_and_no_further(self):
        """A move between the two chains at depth d (both within the limit) walks both chains: its
        work grows with d, and the limit caps d."""
        counts = {}
        for depth in (LIMIT // 2, LIMIT - 1):
            mover = self.ids[f"a{depth - 1}"]  # at level ``depth``, the team below it far too deep to move
            target = self.ids[f"b{depth - 2}"]  # at level depth - 1
            before = measure.commands_run()
            with self.assertRaises(store.Refused):  # one level deeper: the 1,000-deep team below is past the limit
                store.move_employee(mover, self.ids[f"b{depth - 1}"], actor=ACTOR)
            counts[depth] = measure.commands_run() - before
            leaf = employee(f"Leaf{depth}", self.ids[f"a{depth - 2}"])
            before = measure.commands_run()
            store.move_employee(leaf, target, actor=ACTOR)
            counts[depth, "moved"] = measure.commands_run() - before
        self.assertGreater(counts[LIMIT - 1, "moved"], counts[LIMIT // 2, "moved"])
        self.assertLess(counts[LIMIT - 1, "moved"], 12 * LIMIT)
