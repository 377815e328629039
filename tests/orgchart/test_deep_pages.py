"""A page of a lexical name index, however deep, is read by rank: the script's commands visit the page's
members and not every one before them (``ZRANGEBYLEX … LIMIT offset`` steps over the offset), the
same at two sizes, and the rows are the page of the names in order, either way, with a prefix too."""

from types import SimpleNamespace

from config.redis import raw_client
from orgchart import keys
from orgchart.documents import Employee
from orgchart.store.core import name_page
from tests.base import RedisTestCase, commands_logged

PER_PAGE = 25


class DeepPageTest(RedisTestCase):
    def load(self, size: int) -> list[str]:
        """``size`` employees in the name index (half of them named "Lee …"), their ids in name order."""
        raw_client().flushdb()
        names = {pk: f"{'Lee' if pk % 2 else 'Kim'} {pk * 7919 % size:06d}" for pk in range(1, size + 1)}
        pipe = raw_client().pipeline(transaction=False)
        for pk, name in names.items():
            pipe.hset(keys.employee(pk), mapping={"name": name, "title": "Engineer"})
        pipe.zadd(keys.employee_names(), {f"{name.casefold()}\0{pk}": 0 for pk, name in names.items()})
        pipe.execute()
        return [str(pk) for pk, _ in sorted(names.items(), key=lambda item: (item[1].casefold(), str(item[0])))]

    def page(self, q: str, offset: int, descending: bool) -> tuple[int, list[str], list[list[bytes]]]:
        state = SimpleNamespace(q=q, offset=offset, per_page=PER_PAGE, descending=descending)
        with commands_logged() as commands:
            total, flat = name_page(keys.employee_names(), state, "employee")
        return total, flat[:: 1 + len(Employee.SUMMARY_FIELDS)], commands

    def test_a_deep_page_reads_its_members_by_rank_at_any_size(self):
        for size in (2_000, 20_000):
            ordered = self.load(size)
            lees = [pk for pk in ordered if int(pk) % 2]
            for q, expected in (("", ordered), ("lee", lees)):
                for descending in (False, True):
                    wanted = list(reversed(expected)) if descending else expected
                    for offset in (0, len(expected) - 30):
                        with self.subTest(size=size, q=q, descending=descending, offset=offset):
                            total, ids, commands = self.page(q, offset, descending)
                            self.assertEqual(total, len(expected))
                            self.assertEqual(ids, wanted[offset : offset + PER_PAGE])
                            for words in commands:  # no range steps over the page's offset
                                if words[0] in (b"ZRANGEBYLEX", b"ZREVRANGEBYLEX"):
                                    self.assertEqual(words[-2:], [b"0", b"1"])
                                if words[0] == b"ZRANGE":
                                    self.assertLessEqual(int(words[3]) - int(words[2]) + 1, PER_PAGE)
