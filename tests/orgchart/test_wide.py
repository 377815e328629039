"""A manager of very many direct reports costs each command a bounded part of them: counted at two
sizes (1,100 and 2,200 direct reports, one bulk import each, with the bounds shrunk to match: a set
of more than 100 ids is read by cursor, 50 reports are handed over a script) at the server, never
timed.

The employee and tree pages read a page of the report name index; a walk down reads no report set
of more than ``ORGCHART_WIDE_SET`` ids in one command (the rest by SSCAN); a delete hands the reports over a
slice per script; ``check_integrity`` reads a large set by cursor.
"""

from django.test import override_settings
from django.urls import reverse

from config.invariants import violations
from config.redis import client
from orgchart import keys, scale, store
from orgchart.importing import OrgData, Person
from orgchart.store import measure
from tests.base import RedisTestCase
from tests.orgchart.helpers import ACTOR, employee

SMALL, LARGE = 1_100, 2_200
WIDE, SLICE = 100, 50


def wide(prefix: str, size: int) -> OrgData:
    """``<prefix>boss`` with ``size`` direct reports, the first of them with two of its own."""
    data = OrgData()
    boss = f"{prefix}boss"
    data.people[boss] = Person(boss.upper())
    for i in range(size):
        data.people[f"{prefix}{i:05d}"] = Person(f"{prefix.upper()}{i:05d}", manager=boss)
    for i in range(2):
        data.people[f"{prefix}sub{i}"] = Person(f"{prefix.upper()}SUB{i}", manager=f"{prefix}00000")
    return data


def server_stats() -> dict[str, int]:
    return {name: int(row["calls"]) for name, row in client().info("commandstats").items()}


@override_settings(ORGCHART_WIDE_SET=WIDE, ORGCHART_HANDOVER_SLICE=SLICE)
class WideManagerTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.ids = {**scale.load(wide("a", SMALL)), **scale.load(wide("b", LARGE))}
        self.boss = {SMALL: self.ids["aboss"], LARGE: self.ids["bboss"]}

    def commands(self, action) -> int:
        before = measure.commands_run()
        action()
        return measure.commands_run() - before

    def test_every_read_and_write_of_the_reports_is_bounded_at_both_sizes(self):
        """One import of both shapes for the three checks (the delete last)."""
        self.pages_read_one_page_of_the_reports()
        self.a_walk_down_reads_a_wide_set_by_cursor()
        self.a_delete_hands_the_reports_over_a_slice_per_script()

    def pages_read_one_page_of_the_reports(self):
        seen = {}
        for size, boss in self.boss.items():
            pages = {}
            for name, url in (
                ("employee", reverse("orgchart:employee_detail", args=[boss])),
                ("depth 2", reverse("orgchart:employee_detail", args=[boss]) + "?depth=2"),
                ("tree", reverse("orgchart:tree") + f"?root={boss}"),
                ("next page", reverse("orgchart:tree") + f"?root={boss}&offset=100"),
            ):
                response = None

                def view(url=url):
                    nonlocal response
                    response = self.client.get(url)

                pages[name] = self.commands(view)
                self.assertEqual(response.status_code, 200, url)
                self.assertLess(len(response.content), 256 * 1024)
            prefix = "A" if size == SMALL else "B"
            page = self.client.get(reverse("orgchart:employee_detail", args=[boss])).content.decode()
            self.assertTrue(f">{prefix}00000<" in page and f">{prefix}00099<" in page)
            self.assertFalse(f">{prefix}00100<" in page)  # one page of them, in name order
            self.assertTrue(f"<dt>Direct reports</dt><dd>{size}</dd>" in page)  # the count, whole
            seen[size] = pages
        self.assertEqual(seen[SMALL], seen[LARGE])

    def a_walk_down_reads_a_wide_set_by_cursor(self):
        for size, boss in self.boss.items():
            before = server_stats()
            levels = store.subtree(boss)
            after = server_stats()
            self.assertEqual([len(level) for level in levels], [size, 2])
            scans = after.get("cmdstat_sscan", 0) - before.get("cmdstat_sscan", 0)
            self.assertGreaterEqual(scans, size // WIDE)  # no one command read the whole set
            self.assertEqual(after.get("cmdstat_smembers", 0), before.get("cmdstat_smembers", 0))

    def a_delete_hands_the_reports_over_a_slice_per_script(self):
        per_call = {}
        for size, boss in self.boss.items():
            successor = employee(f"Heir{size}")
            before = server_stats()
            store.delete_employee(boss, successor, actor=ACTOR, name=f"{'A' if size == SMALL else 'B'}BOSS")
            after = server_stats()
            calls = after["cmdstat_evalsha"] - before.get("cmdstat_evalsha", 0)
            # the delete finds too many, the slices hand over all but the last slice, the delete does that one
            self.assertEqual(calls, (size - SLICE) // SLICE + 2)
            work = sum(after.values()) - sum(before.values()) - (after["cmdstat_info"] - before["cmdstat_info"])
            per_call[size] = work / calls
            self.assertEqual(client().scard(keys.reports(successor)), size)
            self.assertEqual(store.get_employee(successor).total, size + 2)
        self.assertLess(abs(per_call[SMALL] - per_call[LARGE]), per_call[SMALL] / 10)  # the same work a call
        self.assertEqual(violations(["orgchart"]), [])
