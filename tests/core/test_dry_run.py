"""The dry run refuses all that the confirm would: for every app's import format, hostile and odd
records (found by hypothesis, and the known cases: Unicode digits, 400-digit numbers, over-long
text and lines, duplicate ids and names, dangling references, deep chains of command) are checked
by the dry run (``runner.check``, what the check job and the preview run) and then imported for
real (``runner.restore``, the confirm). Whenever the dry run accepts a file, the import writes all
of it (every invariant holding, every document there); whenever it refuses, with a message, the
import refuses the same and writes nothing. The org chart's e-book importer is held to the same:
what ``importing.read`` accepts, ``import_orgchart`` imports.
"""

import json
import shutil
import tempfile
from io import StringIO
from pathlib import Path
from unittest import mock

from django.core.management import CommandError, call_command
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cms import store as cms_store
from config.activity import Actor
from config.exchange import files, runner
from config.exchange import store as exchange_store
from config.invariants import violations
from config.redis import client
from orgchart import importing
from orgchart import store as org_store
from school import store as school_store
from tests.base import RedisTestCase, flush_test_redis, temporary_folder
from tests.catalog.helpers import make_product, review
from tests.orgchart.helpers import employee, location
from tests.school.helpers import ACTOR as SCHOOL
from tests.school.helpers import course, instructor, student

ANN = Actor("ann")
T0 = 1767571200.0

# Values a field may be given: each kind a checker must refuse or take as it is, never crash on.
HOSTILE = [
    "١٢",  # Arabic-Indic digits
    "１２",  # fullwidth digits
    "²",
    "1" * 400,  # a number of 400 digits, as text
    10**400,  # and as a JSON number
    -(10**30),
    1e308,
    -1e308,
    1.5,
    0,
    -1,
    2**53 + 1,
    True,
    None,
    "",
    " ",
    "x" * 100_001,  # longer than any text field
    "a\x00b",
    "a\u202eb",  # a bidirectional override: text, not a control character
    "\ud7ff\ue000",
    [],
    [1, [2, [3]]],
    {},
    {"a": {"b": 1}},
    "2026-01-05T09:00:00Z",
    "yes",
    "NaN",
    "1e999",
]
# The cases known to have slipped past a check before: Unicode digits, numbers too long for any
# field, over-long text, the wrong type.
KNOWN = ["١٢", "1" * 400, 10**400, "x" * 100_001]
values = st.one_of(
    st.sampled_from(HOSTILE),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.lists(st.one_of(st.integers(), st.text(max_size=8)), max_size=4),
)


def seed_small() -> None:
    """A few documents of every app, written through the stores, every entity of every format."""
    product = make_product("Sonique Buds", tags=("audio",))
    make_product("Loud Buds", sku="LOUD-1")
    review(product, 4, comment="Good.")
    first, other = course("CS-101"), course("CS-102", "Data")
    ada, grace = student("Ada"), instructor("Grace")
    school_store.enrol(first, ada, actor=SCHOOL)
    school_store.link_instructor(other, grace, actor=SCHOOL)
    post = cms_store.create_post(
        {"title": "Hello world", "body": "Body.", "author": "ann", "status": "draft"}, actor=ANN, comment="", at=T0
    )
    cms_store.add_comment(post.id, author="cat", text="hi", at=T0 + 1, actor=ANN)
    where = location("Seattle")
    chief = employee("Chief", None, where)
    boss = employee("Boss", chief, where)
    employee("Worker", boss)
    org_store.record_readings(where, [(T0 + 60 * i, 20.0 + i) for i in range(3)])


class DryRunHoldsTest(RedisTestCase):
    """Each example: a copy of an export with one record changed, the dry run, then the confirm."""

    sign_in = False

    exported: dict[str, dict[str, list[str]]] = {}  # app -> file -> lines: the export every example changes
    manifests: dict[str, str] = {}

    def setUp(self):
        super().setUp()
        self.base = temporary_folder(self)
        if not DryRunHoldsTest.exported:
            seed_small()
            for app in runner.exchanges():
                runner.export(app, self.base / app)
                DryRunHoldsTest.exported[app] = {
                    path.name: path.read_text(encoding="utf-8").splitlines()
                    for path in (self.base / app).glob("*.jsonl")
                }
                DryRunHoldsTest.manifests[app] = (self.base / app / files.MANIFEST).read_text(encoding="utf-8")
            flush_test_redis()

    def attempt(
        self, app: str, files_: dict[str, list[str]], confirm: bool = True, audit: bool = True
    ) -> tuple[bool, str]:
        """Write ``files_`` beside the export's manifest, run the dry run, then the real import into
        an empty app, and check that the two agree. Returns whether the dry run accepted, and why not.
        ``confirm=False`` skips the import of a refused file (it runs the same check first);
        ``audit=False`` the invariants after an accepted one (every document is still counted)."""
        folder = Path(tempfile.mkdtemp(dir=self.base))
        (folder / files.MANIFEST).write_text(self.manifests[app], encoding="utf-8")
        for name, lines in files_.items():
            (folder / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        exchange_store.clear(app)
        plan = runner.check(app, folder)
        if not plan.ok:
            lines = plan.report.refusal_lines()
            self.assertTrue(lines and all(line.strip() for line in lines), "a refusal says why")
            if not confirm:
                shutil.rmtree(folder)
                return False, "; ".join(lines[:3])
            before = {key: client().dump(key) for key in client().scan_iter("*", count=1000)}
            with self.assertRaises(runner.Refused):
                runner.restore(app, folder)
            after = {key: client().dump(key) for key in client().scan_iter("*", count=1000)}
            self.assertEqual(after, before, "a refused import writes nothing")
            shutil.rmtree(folder)
            return False, "; ".join(lines[:3])
        try:
            runner.restore(app, folder)
        except Exception as exc:  # the confirm failed where the dry run had accepted: the hole this test finds
            self.fail(f"{app}: the dry run accepted what the import then failed on: {type(exc).__name__}: {exc}")
        if audit:
            self.assertEqual(violations([app]), [], f"{app}: invariants after importing what the dry run accepted")
        again = temporary_folder(self) / "again"
        counts = runner.export(app, again)
        for entity, documents in plan.report.counts.items():
            if entity in counts:
                self.assertEqual(counts[entity], documents, f"{app}.{entity}: every document accepted is there")
        shutil.rmtree(folder)
        return True, ""

    def changed(self, app: str, entity_file: str, line: int, field: str, value) -> dict[str, list[str]]:
        out = {name: list(lines) for name, lines in self.exported[app].items()}
        lines = out[entity_file]
        doc = json.loads(lines[line % len(lines)])
        doc[field] = value
        lines[line % len(lines)] = json.dumps(doc)
        return out

    def fields(self, app: str, entity_file: str) -> list[str]:
        return sorted({name for line in self.exported[app][entity_file] for name in json.loads(line)})

    def test_what_the_dry_run_accepts_imports_and_what_it_refuses_the_import_refuses(self):
        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(data=st.data())
        def one_record_changed(data):
            app = data.draw(st.sampled_from(sorted(self.exported)))
            entity_file = data.draw(st.sampled_from(sorted(self.exported[app])))
            field = data.draw(st.sampled_from(self.fields(app, entity_file) + ["extra"]))
            line = data.draw(st.integers(0, 10))
            self.attempt(app, self.changed(app, entity_file, line, field, data.draw(values)))

        one_record_changed()

    def test_the_known_cases_in_every_field_of_every_format(self):
        """Each known value in each field of each file; a refused file's import is run for the first
        refusal of each file (every import runs the same check first)."""
        for app, by_file in self.exported.items():
            for entity_file in by_file:
                confirmed = False
                for field in self.fields(app, entity_file):
                    for value in KNOWN:
                        with self.subTest(app=app, file=entity_file, field=field, value=repr(value)[:40]):
                            changed = self.changed(app, entity_file, 0, field, value)
                            ok, _ = self.attempt(app, changed, confirm=not confirmed, audit=False)
                            confirmed = confirmed or not ok

    def test_duplicates_and_dangling_references_are_refused_by_the_dry_run(self):
        for app, by_file in self.exported.items():
            for entity_file, lines in by_file.items():
                with self.subTest(app=app, file=entity_file, case="a line twice"):
                    twice = {**by_file, entity_file: [lines[0], *lines]}
                    self.assertFalse(self.attempt(app, twice)[0])
                first = json.loads(lines[0])
                refs = [f for f, v in first.items() if f != "id" and isinstance(v, int) and not isinstance(v, bool)]
                for field in refs:
                    with self.subTest(app=app, file=entity_file, case=f"{field} far away"):
                        self.attempt(app, self.changed(app, entity_file, 0, field, 2**53 - 7))

    @override_settings(ORGCHART_MAX_DEPTH=30)
    def test_a_chain_of_command_deeper_than_the_limit_is_refused_by_the_dry_run(self):
        for depth, accepted in ((30, True), (31, False)):
            people = [{"id": i, "name": f"P{i}", "title": "", "manager": i - 1 if i > 1 else None,
                       "location": None, "full_time": True, "version": 1} for i in range(1, depth + 1)]  # fmt: skip
            lines = [json.dumps(p) for p in people]
            ok, why = self.attempt("orgchart", {"employees.jsonl": lines, "locations.jsonl": []})
            self.assertEqual(ok, accepted, why)
            if not accepted:
                self.assertIn("employees.jsonl:31: manager: '#31' would be more than 30 levels down", why)

    def test_a_line_over_the_limit_is_refused_by_the_dry_run(self):
        with mock.patch.object(files, "MAX_LINE", 4096):
            doc = json.loads(self.exported["cms"]["posts.jsonl"][0])
            doc["body"] = "x" * 5000
            ok, why = self.attempt("cms", {**self.exported["cms"], "posts.jsonl": [json.dumps(doc)]})
        self.assertFalse(ok)
        self.assertIn("line longer than 4,096 bytes", why)


@override_settings(ORGCHART_MAX_DEPTH=30)
class EbookImporterTest(RedisTestCase):
    """``import_orgchart``'s dry run (``importing.read``) against its import, on odd files."""

    sign_in = False

    def files(self, folder: Path, people: list[str], edges: list[tuple[str, str]]) -> None:
        (folder / "Employee.csv").write_text("name,title\n" + "".join(f"{p},\n" for p in people), encoding="utf-8")
        (folder / "Location.csv").write_text("name\n", encoding="utf-8")
        rows = "".join(f"{a},{b}\n" for a, b in edges)
        (folder / "REPORTS_TO.csv").write_text("src,dest\n" + rows, encoding="utf-8")
        (folder / "WORKS_AT.csv").write_text("src_employee,dest_location,full_time\n", encoding="utf-8")

    def outcome(self, people, edges) -> tuple[bool, bool]:
        folder = temporary_folder(self) / "org"
        folder.mkdir()
        self.files(folder, people, edges)
        try:
            importing.read(folder)
            checked = True
        except importing.ImportRefused:
            checked = False
        flush_test_redis()
        try:
            call_command("import_orgchart", str(folder), stdout=StringIO())
            imported = True
        except Exception:
            imported = False
        if imported:
            self.assertEqual(violations(["orgchart"]), [])
            self.assertEqual(
                client().hlen("orgchart:{orgchart}:index:employee:byname"), len(set(map(str.casefold, people)))
            )
        return checked, imported

    def test_a_chain_at_and_past_the_limit(self):
        chain = [f"p{i}" for i in range(31)]
        edges = [(chain[i + 1], chain[i]) for i in range(30)]
        self.assertEqual(self.outcome(chain[:30], edges[:29]), (True, True))
        self.assertEqual(self.outcome(chain, edges), (False, False))

    def test_odd_names_and_edges(self):
        names = st.text(min_size=1, max_size=12).filter(lambda t: not {",", "\n", "\r", '"'} & set(t))

        @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(
            people=st.lists(names, min_size=1, max_size=6),
            edges=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=6),
        )
        def odd_files(people, edges):
            pairs = [(people[a % len(people)], people[b % len(people)]) for a, b in edges]
            checked, imported = self.outcome(people, pairs)
            self.assertEqual(checked, imported)

        odd_files()


class CatalogImporterTest(RedisTestCase):
    """``import_catalog --dry-run`` against ``import_catalog``, on the e-book's file with one record
    changed, into a catalog that already holds a product (its SKU taken)."""

    sign_in = False
    SOURCE = Path(__file__).resolve().parent.parent / "catalog" / "data" / "polymorphic-pattern.json"

    def outcome(self, records: list) -> tuple[bool, bool]:
        flush_test_redis()
        make_product("Held Buds", sku="HELD-1")
        path = temporary_folder(self) / "products.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        results = []
        for extra in (["--dry-run"], []):
            before = {key: client().dump(key) for key in client().scan_iter("catalog:*", count=1000)}
            try:
                call_command("import_catalog", str(path), *extra, stdout=StringIO())
                results.append(True)
            except CommandError as refused:
                self.assertTrue(str(refused).strip())
                self.assertEqual(before, {k: client().dump(k) for k in client().scan_iter("catalog:*", count=1000)})
                results.append(False)
        if results[1]:
            self.assertEqual(violations(["catalog"]), [])
        return results[0], results[1]

    def test_a_sku_the_catalog_holds_is_refused_by_the_dry_run(self):
        records = json.loads(self.SOURCE.read_text(encoding="utf-8"))
        records[0]["sku"] = "held-1"
        self.assertEqual(self.outcome(records), (False, False))

    def test_odd_values_in_any_field(self):
        records = json.loads(self.SOURCE.read_text(encoding="utf-8"))

        @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(data=st.data())
        def one_value_changed(data):
            record = dict(records[data.draw(st.integers(0, len(records) - 1))])
            record[data.draw(st.sampled_from(sorted(record) + ["sku"]))] = data.draw(values)
            dry, real = self.outcome([record])
            self.assertEqual(dry, real)

        one_value_changed()
