"""A full-name search in a large org shows that person first, whatever the cap on the pieces' candidates,
and reads a bounded number of names at any size."""

import re
from unittest import mock

from orgchart import store
from tests.base import RedisTestCase, command_stats
from tests.orgchart.helpers import employee


def calls() -> dict[str, int]:
    return {name.removeprefix("cmdstat_"): int(stats["calls"]) for name, stats in command_stats().items()}


def shown(response) -> list[str]:
    return re.findall(r'<a href="/orgchart/employees/\d+/">([^<]+)</a>', response.content.decode())


class FullNameFirstTest(RedisTestCase):
    def test_the_name_typed_whole_comes_first_and_is_never_hidden_by_the_cap(self):
        for n in range(30):  # more names holding both words than the cap reads
            employee(f"Annabel Smithson {n:02}")
        target = employee("Ann Smith")
        employee("Ann Smithers")
        with mock.patch("orgchart.store.names.SEARCH_LIMIT", 5), mock.patch("orgchart.store.SEARCH_LIMIT", 5):
            response = self.client.get("/orgchart/employees/", {"q": "ann smith"})
        names = shown(response)
        self.assertEqual(names[:2], ["Ann Smith", "Ann Smithers"])  # the name itself, then those starting so
        self.assertContains(response, 'id="capped-hint"')  # and the list says it holds only some
        suggested = store.suggest_employees("ANN SMITH", limit=3)
        self.assertEqual(suggested[0], (str(target), "Ann Smith"))

    def test_a_search_reads_a_bounded_number_of_names_at_any_size(self):
        def work(q):
            before = calls()
            store.search_employee_ids(q)
            after = calls()
            return {name: after.get(name, 0) - before.get(name, 0) for name in ("hmget", "hget", "zrangebylex")}

        with mock.patch("orgchart.store.names.SEARCH_LIMIT", 10):
            for n in range(20):
                employee(f"Ann Smithson {n:02}")
            small = work("ann smith")
            for n in range(20, 80):
                employee(f"Ann Smithson {n:02}")
            large = work("ann smith")
        self.assertEqual(small, large)  # the candidates' names read stop at the cap
        self.assertLessEqual(large["hmget"] + large["hget"], 2 * 11)

    def test_a_one_character_search_reads_a_bounded_sample_at_any_size(self):
        def work(q):
            before = calls()
            ids, capped = store.search_employee_ids(q)
            after = calls()
            return {name: after.get(name, 0) - before.get(name, 0) for name in ("hget", "sscan")}, len(ids), capped

        with mock.patch("orgchart.store.names.SEARCH_LIMIT", 20):
            for n in range(60):
                employee(f"Kim Park {n:03}")
            small, found, capped = work("k")  # a piece of one character: in every name
            self.assertEqual((found, capped), (20, True))
            for n in range(60, 300):
                employee(f"Kim Park {n:03}")
            large, found, capped = work("k")
        self.assertEqual((found, capped), (20, True))
        for work_done in (small, large):  # the sample's names and those starting with "k", each at most 21
            self.assertLessEqual(work_done["hget"], 2 * 21)
            self.assertLessEqual(work_done["sscan"], 3)
