import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import CommandError, call_command

from config.invariants import violations
from config.redis import client
from orgchart import keys, store
from tests.base import RedisTestCase
from tests.orgchart.helpers import employee

GOOD = {
    "Employee.csv": "name,title\nDoug,CEO\nAnn,VP\nBob,VP\nCid,Engineer\n",
    "Location.csv": "name\nSeattle\nAustin\n",
    "REPORTS_TO.csv": "src,dest,relationship\nAnn,Doug,REPORTS_TO\nBob,Doug,REPORTS_TO\nCid,Ann,REPORTS_TO\n",
    "WORKS_AT.csv": "src_employee,dest_location,full_time\nDoug,Seattle,true\nAnn,Seattle,true\nCid,Austin,false\n",
}


class ImportTest(RedisTestCase):
    def run_import(self, **changes):
        with tempfile.TemporaryDirectory() as folder:
            for name, text in {**GOOD, **changes}.items():
                Path(folder, name).write_text(text)
            out = StringIO()
            call_command("import_orgchart", folder, stdout=out)
            return out.getvalue()

    def assertRefused(self, fragment: str, **changes):
        before = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        with self.assertRaises(CommandError) as caught:
            self.run_import(**changes)
        self.assertIn(fragment, str(caught.exception))
        self.assertIn("nothing imported", str(caught.exception).lower())
        after = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        self.assertEqual(before, after, "a refused import wrote something")

    def test_imports_the_ebook_format_and_prints_what_it_did(self):
        out = self.run_import()
        self.assertIn("Imported 4 employees, 2 locations, 3 REPORTS_TO and 3 WORKS_AT edges", out)
        doug = store.get_employee(store.resolve_employee("Doug"))
        self.assertEqual((doug.title, doug.direct, doug.total, doug.location_name), ("CEO", 2, 3, "Seattle"))
        cid = store.get_employee(store.resolve_employee("Cid"))
        self.assertEqual(cid.ancestors, [doug.id, store.resolve_employee("Ann")])
        self.assertFalse(cid.full_time)
        self.assertEqual(client().smembers(keys.roots()), {str(doug.id)})
        self.assertEqual(violations(["orgchart"]), [])

    def test_unknown_names(self):
        self.assertRefused(
            "REPORTS_TO.csv:3: unknown employee 'Bobby'",
            **{"REPORTS_TO.csv": GOOD["REPORTS_TO.csv"].replace("Bob,", "Bobby,")},
        )
        self.assertRefused(
            "WORKS_AT.csv:4: unknown location 'Boston'",
            **{"WORKS_AT.csv": GOOD["WORKS_AT.csv"].replace("Cid,Austin", "Cid,Boston")},
        )
        self.assertRefused(
            "WORKS_AT.csv:2: unknown employee 'Dug'", **{"WORKS_AT.csv": GOOD["WORKS_AT.csv"].replace("Doug,", "Dug,")}
        )

    def test_duplicate_names(self):
        self.assertRefused(
            "Employee.csv:6: duplicate employee 'ann' (first at Employee.csv:3)",
            **{"Employee.csv": GOOD["Employee.csv"] + "ann,Other\n"},
        )
        self.assertRefused(
            "Location.csv:4: duplicate location 'Austin'", **{"Location.csv": GOOD["Location.csv"] + "Austin\n"}
        )

    def test_names_already_in_redis(self):
        employee("Ann")
        self.assertRefused("Already in the org chart: employee 'Ann'")

    def test_two_managers_for_one_person(self):
        self.assertRefused(
            "REPORTS_TO.csv:5: 'Cid' already reports to 'Ann' (REPORTS_TO.csv:4): two managers",
            **{"REPORTS_TO.csv": GOOD["REPORTS_TO.csv"] + "Cid,Bob\n"},
        )

    def test_cycles(self):
        self.assertRefused(
            "REPORTS_TO.csv:5: 'Doug' reporting to 'Cid' makes a cycle",
            **{"REPORTS_TO.csv": GOOD["REPORTS_TO.csv"] + "Doug,Cid\n"},
        )
        self.assertRefused(
            "REPORTS_TO.csv:2: 'Doug' reporting to 'Doug' makes a cycle", **{"REPORTS_TO.csv": "src,dest\nDoug,Doug\n"}
        )

    def test_every_error_is_listed(self):
        with self.assertRaises(CommandError) as caught:
            self.run_import(
                **{"Employee.csv": GOOD["Employee.csv"] + "Doug,Again\n", "WORKS_AT.csv": "Zed,Seattle,true\n"}
            )
        self.assertIn("Employee.csv:6", str(caught.exception))
        self.assertIn("WORKS_AT.csv:1: unknown employee 'Zed'", str(caught.exception))

    def test_missing_file(self):
        with tempfile.TemporaryDirectory() as folder, self.assertRaises(CommandError) as caught:
            call_command("import_orgchart", folder)
        self.assertIn("Employee.csv: file not found", str(caught.exception))
