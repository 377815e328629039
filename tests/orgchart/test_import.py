import re
import tempfile
from io import StringIO
from pathlib import Path
from unittest import mock

from django.core.management import CommandError, call_command
from django.test import SimpleTestCase, override_settings, tag
from django.urls import reverse

from config import keys as core_keys
from config.exchange import store as exchange_store
from config.invariants import violations
from config.redis import client, on_cluster
from orgchart import importing, keys, store
from tests.base import RedisTestCase, flush_scripts
from tests.orgchart.helpers import employee, location

COMPANION = Path(__file__).parent / "data" / "companion"

GOOD = {
    "Employee.csv": "name,title\nDoug,CEO\nAnn,VP\nBob,VP\nCid,Engineer\n",
    "Location.csv": "name\nSeattle\nAustin\n",
    "REPORTS_TO.csv": "src,dest,relationship\nAnn,Doug,REPORTS_TO\nBob,Doug,REPORTS_TO\nCid,Ann,REPORTS_TO\n",
    "WORKS_AT.csv": "src_employee,dest_location,full_time\nDoug,Seattle,true\nAnn,Seattle,true\nCid,Austin,false\n",
}


def _names(html: str, section_id: str) -> list[str]:
    """The employee names linked inside the element with ``section_id``, in page order."""
    start = html.index(f'id="{section_id}"')
    end = html.index("</section>", start) if "</section>" in html[start:] else len(html)
    return re.findall(r'<a href="/orgchart/employees/\d+/">([^<]+)</a>', html[start:end])


class ImportTest(RedisTestCase):
    def run_import(self, folder=None, **changes):
        if folder is not None:
            out = StringIO()
            call_command("import_orgchart", str(folder), stdout=out)
            return out.getvalue()
        with tempfile.TemporaryDirectory() as folder:
            for name, text in {**GOOD, **changes}.items():
                Path(folder, name).write_bytes(text if isinstance(text, bytes) else text.encode())
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
        self.assertNotIn("Normalized", out)  # true/false is already the stored word
        doug = store.get_employee(store.resolve_employee("Doug"))
        self.assertEqual((doug.title, doug.direct, doug.total, doug.location_name), ("CEO", 2, 3, "Seattle"))
        cid = store.get_employee(store.resolve_employee("Cid"))
        self.assertEqual(cid.manager, store.resolve_employee("Ann"))
        self.assertFalse(cid.full_time)
        self.assertEqual(client().smembers(keys.roots()), {str(doug.id)})
        self.assertEqual(violations(["orgchart"]), [])

    def test_the_companion_files_import_unchanged_and_report_what_was_normalized(self):
        out = self.run_import(COMPANION)
        self.assertIn("Imported 20 employees, 3 locations, 19 REPORTS_TO and 20 WORKS_AT edges", out)
        self.assertIn("Normalized WORKS_AT.full_time: 20 rewritten, e.g. 'Full Time' → 'true'", out)
        self.assertFalse(store.get_employee(store.resolve_employee("Count")).full_time)
        self.assertTrue(store.get_employee(store.resolve_employee("Bob")).full_time)  # the last line, no newline
        self.assertEqual(violations(["orgchart"]), [])

    def test_the_ebooks_cypher_examples_give_the_same_answers_on_the_screens(self):
        self.run_import(COMPANION)
        doug = store.resolve_employee("Doug")
        detail = reverse("orgchart:employee_detail", args=[doug])
        # MATCH (e:Employee)-[:REPORTS_TO]->(m:Employee {name: 'Doug'}) RETURN e,m
        page = self.client.get(detail).content.decode()
        self.assertEqual(sorted(_names(page, "direct-reports")), ["Otto", "Phil", "Val"])
        # MATCH (e:Employee)-[:REPORTS_TO*2]->(m:Employee {name: 'Doug'}) RETURN e,m
        page = self.client.get(detail, {"depth": 2}).content.decode()
        self.assertEqual(
            sorted(_names(page, "at-depth")), ["Bob", "Buddy", "Cam", "Cody", "Lynn", "Owen", "Rich", "Roman"]
        )
        # MATCH (e:Employee)-[:WORKS_AT]->(l:Location {name: 'Seattle'}) RETURN e,l
        seattle = client().hget(keys.location_by_name(), "seattle")
        page = self.client.get(reverse("orgchart:location_detail", args=[int(seattle)])).content.decode()
        self.assertEqual(sorted(_names(page, "staff-list")), ["Cam", "Cody", "Juana", "Rich", "Val"])

    def test_full_time_in_the_sources_words(self):
        text = "src_employee,dest_location,full_time\nDoug,Seattle,Yes\nAnn,Seattle,part-time\nCid,Austin,NO\n"
        out = self.run_import(**{"WORKS_AT.csv": text})
        self.assertIn("Normalized WORKS_AT.full_time: 3 rewritten, e.g. 'Yes' → 'true'", out)
        self.assertFalse(store.get_employee(store.resolve_employee("Ann")).full_time)
        self.assertRefused(
            "WORKS_AT.csv:1: full_time: must be yes or no (Full Time/Part Time, true/false), not 'sometimes'",
            **{"WORKS_AT.csv": "Doug,Seattle,sometimes\n"},
        )

    def test_names_are_cleaned_as_the_form_cleans_them(self):
        out = self.run_import(
            **{
                "Employee.csv": GOOD["Employee.csv"].replace("Bob,VP", "  Bob   Smith ,VP"),
                "REPORTS_TO.csv": GOOD["REPORTS_TO.csv"].replace("Bob,", "bob  smith,"),
            }
        )
        self.assertIn("Normalized Employee.name: 1 rewritten, e.g. '  Bob   Smith ' → 'Bob Smith'", out)
        self.assertIsNotNone(store.resolve_employee("Bob Smith"))

    def test_names_breaking_the_forms_rules(self):
        long = "x" * 101
        self.assertRefused(
            "Employee.csv:4: Employee.name: longer than 100 characters (101)",
            **{"Employee.csv": GOOD["Employee.csv"].replace("Bob,", f"{long},")},
        )
        self.assertRefused(
            "Employee.csv:2: Employee.title: longer than 100 characters",
            **{"Employee.csv": GOOD["Employee.csv"].replace("CEO", long)},
        )
        self.assertRefused(
            "Employee.csv:3: Employee.name: contains the control character U+0007",
            **{"Employee.csv": GOOD["Employee.csv"].replace("Ann,", "A\x07nn,")},
        )
        self.assertRefused(
            "Employee.csv:6: Employee.name: a name is required",
            **{"Employee.csv": GOOD["Employee.csv"] + '"  ",Boss\n'},
        )

    def test_a_file_that_is_not_utf8(self):
        latin1 = "name,title\nDoug,CEO\nAnn,VP\nBob,VP\nCid,Ingénieur\n".encode("latin-1")
        self.assertRefused("Employee.csv:5: not UTF-8 (byte 0xE9)", **{"Employee.csv": latin1})

    def test_a_byte_order_mark_is_accepted(self):
        self.run_import(**{"Location.csv": "\ufeff" + GOOD["Location.csv"]})
        self.assertIsNotNone(client().hget(keys.location_by_name(), "seattle"))

    def test_a_field_over_the_csv_limit(self):
        huge = "x" * 140_000
        self.assertRefused(
            "Employee.csv:3: unreadable CSV: a field over the CSV limit",
            **{"Employee.csv": GOOD["Employee.csv"].replace("Ann,VP", f'Ann,"{huge}"')},
        )

    def test_unknown_names(self):
        self.assertRefused(
            "REPORTS_TO.csv:3: src: unknown employee 'Bobby'",
            **{"REPORTS_TO.csv": GOOD["REPORTS_TO.csv"].replace("Bob,", "Bobby,")},
        )
        self.assertRefused(
            "WORKS_AT.csv:4: dest_location: unknown location 'Boston'",
            **{"WORKS_AT.csv": GOOD["WORKS_AT.csv"].replace("Cid,Austin", "Cid,Boston")},
        )
        self.assertRefused(
            "WORKS_AT.csv:2: src_employee: unknown employee 'Dug'",
            **{"WORKS_AT.csv": GOOD["WORKS_AT.csv"].replace("Doug,", "Dug,")},
        )

    def test_duplicate_names(self):
        self.assertRefused(
            "Employee.csv:6: name: duplicate employee 'ann' (first at Employee.csv:3)",
            **{"Employee.csv": GOOD["Employee.csv"] + "ann,Other\n"},
        )
        self.assertRefused(
            "Location.csv:4: name: duplicate location 'Austin'", **{"Location.csv": GOOD["Location.csv"] + "Austin\n"}
        )

    def test_names_already_in_redis(self):
        employee("Ann")
        self.assertRefused("Already in the org chart: employee 'Ann'")

    def test_two_managers_for_one_person(self):
        self.assertRefused(
            "REPORTS_TO.csv:5: src: 'Cid' already reports to 'Ann' (REPORTS_TO.csv:4): two managers",
            **{"REPORTS_TO.csv": GOOD["REPORTS_TO.csv"] + "Cid,Bob\n"},
        )

    def test_cycles(self):
        self.assertRefused(
            "REPORTS_TO.csv:5: dest: 'Doug' reporting to 'Cid' makes a cycle",
            **{"REPORTS_TO.csv": GOOD["REPORTS_TO.csv"] + "Doug,Cid\n"},
        )
        self.assertRefused(
            "REPORTS_TO.csv:2: dest: 'Doug' reporting to 'Doug' makes a cycle",
            **{"REPORTS_TO.csv": "src,dest\nDoug,Doug\n"},
        )

    def test_every_error_is_listed(self):
        with self.assertRaises(CommandError) as caught:
            self.run_import(
                **{"Employee.csv": GOOD["Employee.csv"] + "Doug,Again\n", "WORKS_AT.csv": "Zed,Seattle,true\n"}
            )
        self.assertIn("Employee.csv:6", str(caught.exception))
        self.assertIn("WORKS_AT.csv:1: src_employee: unknown employee 'Zed'", str(caught.exception))

    def test_missing_file(self):
        with tempfile.TemporaryDirectory() as folder, self.assertRaises(CommandError) as caught:
            call_command("import_orgchart", folder)
        self.assertIn("Employee.csv: file not found", str(caught.exception))


@override_settings(ORGCHART_MAX_DEPTH=10_000)  # chains far deeper than the default limit, to count the check
class CycleCheckCostTest(RedisTestCase):
    """The cycle check visits each person once: the work of a chain grows with its length, not its square."""

    sign_in = False

    def chain(self, folder: str, size: int, closing: bool = False) -> None:
        people = [f"p{i}" for i in range(size)]
        Path(folder, "Employee.csv").write_text("name,title\n" + "".join(f"{p},\n" for p in people))
        Path(folder, "Location.csv").write_text("name\n")
        edges = "".join(f"{people[i + 1]},{people[i]}\n" for i in range(size - 1))
        if closing:
            edges += f"{people[0]},{people[-1]}\n"
        Path(folder, "REPORTS_TO.csv").write_text("src,dest\n" + edges)
        Path(folder, "WORKS_AT.csv").write_text("src_employee,dest_location,full_time\n")

    def steps(self, size: int) -> int:
        with tempfile.TemporaryDirectory() as folder:
            self.chain(folder, size)
            data, _ = importing.read(folder)
        return data.cycle_steps

    def test_a_chain_costs_one_step_per_person(self):
        self.assertEqual(self.steps(2_000), 2_000)
        self.assertEqual(self.steps(8_000), 8_000)

    def test_a_cycle_through_a_long_chain_is_found(self):
        with tempfile.TemporaryDirectory() as folder:
            self.chain(folder, 5_000, closing=True)
            with self.assertRaises(importing.ImportRefused) as caught:
                importing.read(folder)
        closing = "REPORTS_TO.csv:5001: dest: 'p0' reporting to 'p4999' makes a cycle"
        self.assertEqual(caught.exception.lines, [closing])


@override_settings(ORGCHART_IMPORT_ATOMIC_LIMIT=50)
class LargeImportTest(CycleCheckCostTest):
    """Past the one-transaction limit an import goes out in chunks, into an empty org chart only."""

    def import_chain(self, size: int) -> str:
        with tempfile.TemporaryDirectory() as folder:
            self.chain(folder, size)
            out = StringIO()
            call_command("import_orgchart", folder, stdout=out)
            return out.getvalue()

    def test_a_large_import_goes_in_chunks_and_holds_every_invariant(self):
        self.assertIn("Imported 300 employees", self.import_chain(300))
        self.assertEqual(client().hlen(keys.employee_by_name()), 300)
        self.assertEqual(violations(["orgchart"]), [])

    def test_a_large_import_into_an_org_chart_with_data_is_refused_and_writes_nothing(self):
        self.import_chain(10)
        before = {k: client().dump(k) for k in client().scan_iter("orgchart:*")}
        with self.assertRaisesMessage(CommandError, "needs an empty org chart. Nothing imported."):
            self.import_chain(300)
        self.assertEqual({k: client().dump(k) for k in client().scan_iter("orgchart:*")}, before)


class ExchangeRoundTripTest(RedisTestCase):
    """export_data and import_data of the org chart: the bulk path keeps every id and derived
    structure, and logs one event per entity imported."""

    sign_in = False

    def test_a_round_trip_keeps_ids_and_invariants_and_logs_one_event_per_entity(self):
        seattle, austin = location("Seattle"), location("Austin")
        boss = employee("Doug", location=seattle)
        ann = employee("Ann", boss, austin)
        employee("Cid", ann, seattle)
        store.record_readings(seattle, [(1_700_000_000 + 60 * i, 20 + i / 10) for i in range(180)])
        quiet = {"stdout": StringIO(), "stderr": StringIO()}
        with tempfile.TemporaryDirectory() as folder:
            first, second = Path(folder, "a"), Path(folder, "b")
            call_command("export_data", "--only", "orgchart", str(first), **quiet)
            hours = (first / "orgchart" / "samples.jsonl").read_text().splitlines()
            self.assertEqual(len(hours), 4)  # 180 readings a minute apart from mid-hour: four sensor-hours
            exchange_store.clear("orgchart")
            self.assertFalse(list(client().scan_iter("orgchart:*")))
            client().delete(core_keys.events("orgchart"))
            call_command("import_data", str(first), **quiet)
            self.assertEqual(violations(["orgchart"]), [])
            self.assertEqual([e.name for e in store.location_overview(seattle, 0, 10).staff], ["Cid", "Doug"])
            self.assertEqual((store.get_employee(boss).direct, store.get_employee(boss).total), (1, 2))
            call_command("export_data", "--only", "orgchart", str(second), **quiet)
            for name in ("locations.jsonl", "employees.jsonl", "samples.jsonl"):
                self.assertEqual((first / "orgchart" / name).read_bytes(), (second / "orgchart" / name).read_bytes())
        events = [fields for _, fields in client().xrange(core_keys.events("orgchart"))]
        self.assertEqual(
            sorted((e["verb"], e["entity"]) for e in events), [("imported", "employee"), ("imported", "location")]
        )


@tag("cluster")
class BulkImportTest(RedisTestCase):
    """The bulk path (seeding, measuring) writes what the one transaction writes, in three round trips."""

    sign_in = False

    def read(self, folder: str):
        for name, text in GOOD.items():
            Path(folder, name).write_text(text)
        data, report = importing.read(folder)
        self.assertEqual(report.refused, 0)
        return data

    def snapshot(self) -> dict:
        return {k: client().dump(k) for k in client().scan_iter("orgchart:*")}

    def test_the_bulk_path_writes_what_the_transaction_writes_in_three_round_trips(self):
        with tempfile.TemporaryDirectory() as folder:
            data = self.read(folder)
        store.import_graph(data, actor=store.Actor("t"))
        atomic = self.snapshot()
        client().flushdb()
        flush_scripts()
        # The names, the ids, then everything else (on a cluster the scripts go to every primary first).
        with self.assertRoundTrips(4 if on_cluster() else 3) as trace:
            done = store.import_graph(data, actor=store.Actor("t"), atomic=False)
        self.assertEqual((done.employees, done.locations, done.first_employee), (4, 2, 1))
        self.assertEqual([c.name for c in trace.round_trips[0].commands], ["HMGET", "HMGET"])
        self.assertEqual([c.name for c in trace.round_trips[1].commands], ["INCRBY", "INCRBY"])
        names = [c.name for trip in trace.round_trips[2:] for c in trip.commands]
        self.assertEqual(names[0], "SCRIPT LOAD")  # the scripts are loaded before the bulk call that needs one
        self.assertEqual(names[-1], "XADD")  # the one event, with the last round trip
        self.assertEqual(self.snapshot(), atomic)
        self.assertEqual(violations(["orgchart"]), [])


class BulkNamePiecesTest(SimpleTestCase):
    def test_a_name_is_cut_into_the_index_pieces_a_word_at_a_time(self):
        from config.store import ngrams, ngramtext
        from orgchart.store.names import NAMES

        names = ("Ann Lee", "Ann Lee 42", "Lee Ann", "Café İstanbul ﬁnal", "Ǆemal ÅSA", "x", "", "Ab-cd_ef 12")
        with mock.patch.object(ngrams, "word_grams", wraps=ngramtext.word_grams) as cut:  # where the index calls it
            pieces = NAMES.members_by_set(enumerate(names))
        for n, name in enumerate(names):
            self.assertEqual({key for key, members in pieces.items() if n in members}, set(NAMES.keys_for(name)), name)
        words = [word for name in names for word in ngramtext.words(name)]
        self.assertEqual(cut.call_count, len(set(words)))  # each word worked out once
        self.assertLess(len(set(words)), len(words))
