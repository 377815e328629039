"""The employee list sorts by every column a user would sort by, as a bounded read."""

import re
from unittest import mock

from tests.base import RedisTestCase, command_stats
from tests.orgchart.helpers import employee, location


def shown(response) -> list[str]:
    return re.findall(r'<a href="/orgchart/employees/\d+/">([^<]+)</a>', response.content.decode())


def calls() -> dict[str, int]:
    return {name.removeprefix("cmdstat_"): int(stats["calls"]) for name, stats in command_stats().items()}


class EmployeeSortTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        oslo, austin = location("Oslo"), location("Austin")
        self.boss = employee("Zoe Boss", title="Director", location=oslo)
        employee("Ann Able", manager=self.boss, title="engineer", location=oslo)
        employee("Bob Baker", manager=self.boss, title="Analyst", location=austin)

    def test_every_column_sorts_both_ways(self):
        self.assertEqual(shown(self.client.get("/orgchart/employees/?o=title")), ["Bob Baker", "Zoe Boss", "Ann Able"])
        self.assertEqual(shown(self.client.get("/orgchart/employees/?o=-title"))[0], "Ann Able")
        self.assertEqual(shown(self.client.get("/orgchart/employees/?o=location"))[0], "Bob Baker")
        self.assertEqual(shown(self.client.get("/orgchart/employees/?o=-direct"))[0], "Zoe Boss")
        searched = shown(self.client.get("/orgchart/employees/?q=b&o=title"))  # a search's matches, sorted too
        self.assertEqual(searched, ["Bob Baker", "Zoe Boss", "Ann Able"])
        page = self.client.get("/orgchart/employees/?o=title").content.decode()
        self.assertIn('aria-sort="ascending"><a href="?o=-title"', page)

    def test_past_the_limit_the_list_is_by_name_and_says_to_search(self):
        with mock.patch("orgchart.store.employees.SORT_LIMIT", 2), mock.patch("orgchart.store.SORT_LIMIT", 2):
            response = self.client.get("/orgchart/employees/?o=title")
        self.assertContains(response, "More than 2 employees: sorted by name.")
        self.assertEqual(shown(response), ["Ann Able", "Bob Baker", "Zoe Boss"])

    def test_a_sort_reads_no_more_than_the_limit_allows_at_any_size(self):
        def work():
            before = calls()
            self.client.get("/orgchart/employees/?o=title")
            after = calls()
            return {name: after.get(name, 0) - before.get(name, 0) for name in ("zrange", "hget", "hmget")}

        with mock.patch("orgchart.store.employees.SORT_LIMIT", 10):
            small = work()
            for n in range(20):
                employee(f"Extra {n:02}", manager=self.boss)
            large = work()  # past the limit: the name page, its 25 rows at most
        self.assertLessEqual(large["hget"], 10)
        self.assertEqual(small["hget"], 3)  # each employee's title, read once
