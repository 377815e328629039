"""export_data / import_data: the exact round trip of every app, and what a refused, occupied,
failed or interrupted import leaves behind (nothing new; with --replace, the old data)."""

import dataclasses
import json
import re
from collections import Counter
from io import StringIO
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import override_settings, tag

from catalog import keys as catalog_keys
from catalog import store as catalog_store
from config import trace
from config.activity import Actor
from config.exchange import checking, files, runner
from config.exchange import store as exchange_store
from config.invariants import violations
from config.redis import client
from config.store import pipelined
from tests.base import RedisTestCase, files_of, flush_test_redis, run_jobs, temporary_folder
from tests.catalog.helpers import waves

APPS = ("catalog", "school", "cms", "orgchart")


def snapshot(prefix: str) -> dict:
    """Every key under ``prefix`` with its serialized value: what 'nothing changed' compares."""
    return {key: client().dump(key) for key in client().scan_iter(f"{prefix}*", count=1000)}


class ExchangeTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.base = temporary_folder(self)

    def export(self, name: str, *only: str) -> Path:
        out = StringIO()
        args = ["--only", *only] if only else []
        call_command("export_data", *args, str(self.base / name), stdout=out, stderr=StringIO())
        self.output = out.getvalue()
        return self.base / name

    def import_(self, folder: Path, *extra: str) -> str:
        out = StringIO()
        call_command("import_data", str(folder), *extra, stdout=out, stderr=StringIO())
        return out.getvalue()

    def write(self, folder: Path, name: str, lines: list) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
        (folder / name).write_text(text, encoding="utf-8")


class RoundTripTest(ExchangeTest):
    @tag("slow")
    def test_every_app_round_trips_exactly_on_the_demo_data(self):
        call_command("seed", "--scale", "demo", stdout=StringIO(), stderr=StringIO())
        first = self.export("first")
        self.assertIn("Exported catalog, school, cms, orgchart", self.output)
        flush_test_redis()
        out = self.import_(first)
        self.assertIn("catalog: imported 200 products, 2042 reviews", out)
        self.assertEqual(violations(), [], "check_integrity after the import")
        second = self.export("second")
        before, after = files_of(first), files_of(second)
        self.assertEqual(sorted(before), sorted(after))
        self.assertEqual(
            sorted(before),
            [
                "catalog/manifest.json", "catalog/products.jsonl", "catalog/reviews.jsonl",
                "cms/comments.jsonl", "cms/manifest.json", "cms/posts.jsonl",
                "orgchart/employees.jsonl", "orgchart/locations.jsonl", "orgchart/manifest.json",
                "orgchart/samples.jsonl",
                "school/courses.jsonl", "school/enrolments.jsonl", "school/instructors.jsonl",
                "school/manifest.json", "school/students.jsonl", "school/teaching.jsonl",
            ],
        )  # fmt: skip
        for name in before:
            self.assertEqual(before[name], after[name], f"{name} differs after the round trip")

    def test_the_org_charts_stale_edit_versions_round_trip(self):
        from orgchart import store
        from tests.orgchart.helpers import ACTOR, employee, location

        where = location("Seattle")
        ann, bob = employee("Ann", location=where), employee("Bob")
        values = {"name": "Ann", "title": "Lead", "manager": None, "location": where, "full_time": True}
        store.save_employee(ann, values, actor=ACTOR, version="1")
        store.save_location(where, "Tacoma", actor=ACTOR, version="1")
        first = self.export("first", "orgchart")
        flush_test_redis()
        self.import_(first)
        self.assertEqual([store.get_employee(pk).version for pk in (ann, bob)], [2, 1])
        self.assertEqual(store.get_location(where).version, 2)
        self.assertEqual(violations(["orgchart"]), [])
        self.assertEqual(files_of(first), files_of(self.export("second", "orgchart")))
        # A file written without versions (an older export, or by hand) starts each object at 1.
        folder = self.base / "by-hand" / "orgchart"
        self.write(folder, "locations.jsonl", [{"id": 1, "name": "Austin"}])
        self.write(folder, "employees.jsonl", [{"id": 1, "name": "Cy", "title": "", "manager": None, "location": 1}])
        flush_test_redis()
        self.import_(folder.parent)
        self.assertEqual((store.get_employee(1).version, store.get_location(1).version), (1, 1))

    def test_the_format_is_stable_json_lines_in_id_order(self):
        call_command("seed", "--scale", "demo", "--only", "cms", stdout=StringIO(), stderr=StringIO())
        folder = self.export("cms", "cms")
        lines = (folder / "cms" / "comments.jsonl").read_text().splitlines()
        docs = [json.loads(line) for line in lines]
        self.assertEqual([d["id"] for d in docs], sorted(d["id"] for d in docs))
        self.assertEqual(lines[0], json.dumps(docs[0], sort_keys=True, separators=(",", ":"), ensure_ascii=False))
        self.assertEqual(sorted(docs[0]), ["at", "author", "id", "post", "text"])
        post = json.loads((folder / "cms" / "posts.jsonl").read_text().splitlines()[0])
        self.assertNotIn("num_comments", post)  # derived: rebuilt by the import
        self.assertNotIn("recent_comments", post)
        self.assertEqual([r["version"] for r in post["revisions"]], list(range(1, post["version"])))
        manifest = json.loads((folder / "cms" / "manifest.json").read_text())
        self.assertEqual(manifest["counts"], {"comments": len(docs), "posts": 100})

    @tag("cluster")
    def test_export_reads_by_scan_and_pipelined_batches(self):
        call_command("seed", "--scale", "demo", "--only", "catalog", stdout=StringIO(), stderr=StringIO())
        with trace.recording() as recorded:
            self.export("catalog", "catalog")
        names = [c.name for t in recorded.trips("data") for c in t.commands]
        self.assertNotIn("KEYS", names)
        self.assertIn("SCAN", names)
        batches = [len(c) for c in waves(recorded) if c[0].name == "HGETALL"]
        # 200 products in one batch, 2,066 reviews in five: never one round trip per document (on a
        # cluster, each batch one wave to the nodes holding its documents).
        self.assertEqual(batches, [200, 500, 500, 500, 500, 42])
        self.assertLessEqual(max(batches), exchange_store.BATCH)


class RefusedImportTest(ExchangeTest):
    def catalog_files(self) -> Path:
        folder = self.base / "in" / "catalog"
        product = {
            "id": 3, "type": "earbuds", "name": "Pods", "brand": "Sonique", "sku": "EAR-1", "model": "",
            "price": "9.50", "image": "", "description": "", "manufacturer": "", "dimensions": "", "weight": "",
            "images": [], "videos": [], "tags": ["wireless"], "attrs": {"battery_life": "8", "fit": "in-ear",
            "connection_type": "bluetooth"}, "created_at": 1767591600.0, "updated_at": 1767591600.0,
        }  # fmt: skip
        self.write(folder, "products.jsonl", [product])
        review = {"id": 7, "product": 3, "author": "Ana", "rating": 5, "comment": "", "published_at": 1767591700.5}
        self.write(folder, "reviews.jsonl", [review])
        return folder

    def assertRefusedWithNothingWritten(self, folder: Path, *fragments: str, extra=()):
        before = snapshot("catalog:")
        with self.assertRaises(CommandError) as caught:
            self.import_(folder.parent, "--only", "catalog", *extra)
        for fragment in fragments:
            self.assertIn(fragment, str(caught.exception))
        self.assertEqual(snapshot("catalog:"), before, "a refused import wrote something")
        return str(caught.exception)

    def test_a_small_file_imports_with_its_ids_and_times(self):
        folder = self.catalog_files()
        self.import_(folder.parent)
        (review_id,) = client().zrange(catalog_keys.product_reviews(3), 0, -1)  # 7, or past it in 3's partition
        self.assertEqual(client().hget(catalog_keys.review(review_id), "published_at"), "1767591700.5")
        self.assertEqual(client().hget(catalog_keys.product(3), "num_reviews"), "1")
        self.assertEqual(catalog_keys.partition_of(review_id), catalog_keys.partition_of(3))
        self.assertEqual(int(review_id), 7 if catalog_keys.partition_of(7) == catalog_keys.partition_of(3) else 9)
        self.assertEqual(catalog_store.last_ids(), {"product": 3, "review": max(7, int(review_id))})
        self.assertEqual(violations(["catalog"]), [])

    def test_every_refused_record_is_named_with_file_line_and_field(self):
        folder = self.catalog_files()
        lines = (folder / "reviews.jsonl").read_text().splitlines()
        bad = json.loads(lines[0])
        self.write(
            folder,
            "reviews.jsonl",
            [
                lines[0],
                "{not json",
                {**bad, "id": 8, "product": 99},
                {**bad, "id": 9, "rating": 6, "mood": "happy"},
                {**bad, "id": 9},
                {**bad, "id": 10, "author": "A\x00na"},
            ],
        )
        message = self.assertRefusedWithNothingWritten(
            folder,
            "reviews.jsonl:2: not JSON",
            "reviews.jsonl:3: product: no product has id 99",
            "reviews.jsonl:4: rating: must be between 0 and 5, not 6",
            "reviews.jsonl:4: mood: unknown field",
            "reviews.jsonl:5: id: 9 comes after 9",
            "reviews.jsonl:6: author: contains the control character U+0000",
        )
        self.assertIn("6 refusal(s), nothing imported", message)

    def test_a_file_that_is_not_utf8_or_nested_too_deep(self):
        folder = self.catalog_files()
        (folder / "reviews.jsonl").write_bytes(b'{"id": 1, "author": "Jos\xe9"}\n' + b"[" * 100_000 + b"\n")
        self.assertRefusedWithNothingWritten(
            folder, "reviews.jsonl:1: not UTF-8 (byte 0xE9", "reviews.jsonl:2: nesting too deep to read"
        )

    def test_values_in_other_spellings_are_read_and_reported(self):
        folder = self.catalog_files()
        review = json.loads((folder / "reviews.jsonl").read_text())
        self.write(folder, "reviews.jsonl", [{**review, "rating": "4", "author": "  Ana  Lee "}])
        out = self.import_(folder.parent)
        self.assertIn("catalog: normalized reviews.rating: 1 rewritten, e.g. '4' → '4'", out)
        self.assertIn("catalog: normalized reviews.author: 1 rewritten, e.g. '  Ana  Lee ' → 'Ana Lee'", out)
        (review_id,) = client().zrange(catalog_keys.product_reviews(3), 0, -1)
        self.assertEqual(client().hget(catalog_keys.review(review_id), "author"), "Ana Lee")

    def test_an_app_that_holds_data_is_refused_unless_replace(self):
        folder = self.catalog_files()
        self.import_(folder.parent)
        message = self.assertRefusedWithNothingWritten(folder, "already holds data")
        self.assertIn("--replace", message)
        self.import_(folder.parent, "--replace")
        self.assertEqual(violations(["catalog"]), [])

    def test_replace_keeps_the_old_data_when_the_file_is_refused(self):
        call_command("seed", "--scale", "demo", "--only", "catalog", stdout=StringIO(), stderr=StringIO())
        folder = self.catalog_files()
        self.write(folder, "reviews.jsonl", [{"id": 1, "product": 3, "rating": 9}])
        self.assertRefusedWithNothingWritten(folder, "reviews.jsonl:1: rating", extra=("--replace",))


class FailedImportTest(ExchangeTest):
    """A write that fails or is interrupted half-way leaves the app as it was found."""

    def failing_after(self, calls: int, error: BaseException):
        """The CMS import's ``calls``-th batch of comments fails (its posts are written by then)."""
        from cms import store

        real, count = store.CommentLoad.load, [0]

        def flaky(*args, **kwargs):
            count[0] += 1
            if count[0] == calls:  # once: putting the old data back writes through it too
                raise error
            return real(*args, **kwargs)

        return mock.patch.object(store.CommentLoad, "load", flaky)

    def test_a_failed_import_into_an_empty_app_leaves_nothing(self):
        call_command("seed", "--scale", "demo", "--only", "cms", stdout=StringIO(), stderr=StringIO())
        folder = self.export("cms", "cms")
        call_command("seed", "--only", "cms", "--reset", stdout=StringIO(), stderr=StringIO())
        exchange_store.clear("cms")
        for error in (RuntimeError("disk on fire"), KeyboardInterrupt()):
            with self.subTest(error=type(error).__name__), self.failing_after(1, error):
                with self.assertRaises(type(error)):
                    self.import_(folder)
                self.assertEqual(snapshot("cms:"), {})

    def test_a_failed_replace_puts_the_old_data_back(self):
        call_command("seed", "--scale", "demo", "--only", "cms", stdout=StringIO(), stderr=StringIO())
        folder = self.export("cms", "cms")
        before = files_of(folder)
        with self.failing_after(1, RuntimeError("disk on fire")), self.assertRaises(RuntimeError):
            self.import_(folder, "--replace")
        self.assertEqual(files_of(self.export("again", "cms")), before)
        self.assertEqual(violations(["cms"]), [])


class HoldingTest(ExchangeTest):
    """Whether an app holds data, which an import without --replace refuses: whether any of its id
    counters exists, read in one round trip whatever else the server holds."""

    def fill(self, count: int) -> None:
        """``count`` keys of no app, as another app's million keys would be on a real server."""
        pipelined(range(count), lambda pipe, n: pipe.set(f"elsewhere:{{filler}}:{n}", 1))

    def test_one_round_trip_whatever_the_server_holds(self):
        described = list(runner.exchanges().values())
        counters = sum(len(d.every_counter_key()) for d in described)
        self.assertEqual(counters, 2 * catalog_keys.PARTITIONS + 3 + 2 + 2)  # catalog, school, CMS, org chart
        admin = self.make_staff("admin", is_superuser=True)
        self.client.force_login(admin)
        for held in (0, 5000):  # a SCAN for any key of an empty app walked all of them, a thousand a trip
            with self.subTest(other_keys=held):
                self.fill(held)
                with self.assertRoundTrips(1), self.assertCommands(counters):
                    self.assertEqual(runner.holding(described), [False] * len(described))
                with self.assertRoundTrips(1):
                    index = self.client.get("/exchange/")
                self.assertContains(index, "<td>no</td>", count=len(described))
                with self.assertRoundTrips(1):
                    self.assertContains(self.client.get("/exchange/cms/"), "The CMS holds no data")

    def test_from_the_first_document_until_the_app_is_cleared(self):
        from orgchart import store

        orgchart = runner.exchange_of("orgchart")
        self.assertEqual(runner.holding([orgchart]), [False])
        location = store.save_location(None, "Seattle", actor=store.Actor("t"))
        self.assertEqual(runner.holding([orgchart]), [True])
        store.delete_location(location, None, actor=store.Actor("t"))
        self.assertEqual(runner.holding([orgchart]), [True])  # its counter stays: ids are never handed out twice
        exchange_store.clear("orgchart")
        self.assertEqual(runner.holding([orgchart]), [False])

    def test_each_catalog_partition_counter_counts(self):
        catalog = runner.exchange_of("catalog")
        self.assertEqual(len(catalog_store.counter_keys()), 2 * catalog_keys.PARTITIONS)
        for key in catalog_store.counter_keys():
            with self.subTest(key=key):
                flush_test_redis()
                client().set(key, 1)
                self.assertEqual(runner.holding([catalog]), [True])

    def test_an_import_marks_the_counters_before_its_first_document(self):
        """So an import cut short, even by a process killed half-way, leaves the app holding data."""
        from orgchart import exchange as orgchart_exchange

        orgchart = runner.exchange_of("orgchart")
        (locations,) = [e for e in orgchart.entities if e.name == "locations"]
        seen = []

        def restore(docs, writer):
            seen.append(runner.holding([orgchart]))
            return locations.restore(docs, writer)

        marked = dataclasses.replace(locations, restore=restore)
        entities = tuple(marked if e is locations else e for e in orgchart.entities)
        self.write(self.base / "in" / "orgchart", "locations.jsonl", [{"id": 7, "name": "Austin"}])
        with mock.patch.object(orgchart_exchange, "EXCHANGE", dataclasses.replace(orgchart, entities=entities)):
            self.import_(self.base / "in")
        self.assertEqual(seen, [[True]])
        self.assertEqual(client().hget("orgchart:{orgchart}:location:7", "name"), "Austin")
        self.assertEqual(violations(["orgchart"]), [])


class WritePassTest(ExchangeTest):
    """The import's second pass: what it hands the app's ``restore``, and what it reads again."""

    def test_each_entity_is_one_iterator_in_file_order_checked_once(self):
        call_command("seed", "--scale", "demo", "--only", "cms", stdout=StringIO(), stderr=StringIO())
        folder = self.export("cms", "cms") / "cms"
        exchange_store.clear("cms")
        described = runner.exchange_of("cms")
        cleaned, handed = Counter(), {}

        def spy(entity):
            def clean(record):
                cleaned[entity.name] += 1
                return entity.clean(record)

            def restore(docs, writer):
                handed[entity.name] = (type(docs).__name__, isinstance(docs, list))
                entity.restore(ids_noted(entity.name, docs), writer)

            return dataclasses.replace(entity, clean=clean, restore=restore)

        order = {}

        def ids_noted(name, docs):
            for doc in docs:
                order.setdefault(name, []).append(doc["id"])
                yield doc

        spied = dataclasses.replace(described, entities=tuple(spy(e) for e in described.entities))
        opened, advances = [], []

        def bar(label, total):
            opened.append((label, total))
            return lambda n: advances.append((label, n))

        with (
            mock.patch.object(runner, "exchange_of", return_value=spied),
            mock.patch.object(checking, "exchange_of", return_value=spied),
        ):
            runner.restore("cms", folder, bar=bar)
        lines = {name: (folder / f"{name}.jsonl").read_text().splitlines() for name in ("posts", "comments")}
        self.assertEqual(order, {name: [json.loads(line)["id"] for line in lines[name]] for name in lines})
        self.assertEqual(handed, {"posts": ("generator", False), "comments": ("generator", False)})
        # each document checked once: the write pass reads what the check pass kept
        self.assertEqual(cleaned, {name: len(lines[name]) for name in lines})
        self.assertEqual(violations(["cms"]), [])
        self.assertEqual(files_of(self.export("again", "cms") / "cms"), files_of(folder))
        comments = len(lines["comments"])
        self.assertIn(("import cms.comments", comments), opened)  # the bar knows its total
        moved = [n for label, n in advances if label == "import cms.comments"]
        self.assertEqual(sum(moved), comments)
        self.assertEqual(len(moved), -(-comments // runner.STEP))  # in steps: a bar costs nothing per document


class CommandLineTest(ExchangeTest):
    def test_only_takes_several_apps_before_the_directory(self):
        folder = self.export("two", "cms", "school")
        self.assertEqual(sorted(p.name for p in folder.iterdir()), ["cms", "school"])

    def test_unknown_app_and_empty_directory(self):
        with self.assertRaisesMessage(CommandError, "no export format for nope"):
            call_command("export_data", "--only", "nope", str(self.base))
        with self.assertRaisesMessage(CommandError, "holds no app's export"):
            call_command("import_data", str(self.base))

    def test_the_registry_knows_every_app(self):
        self.assertEqual(tuple(runner.exchanges()), APPS)


class Screens:
    """The org chart's Import / export screen as an administrator uses it, its background jobs run
    by the worker's own loop in this process (the browser test drives Chromium; tests/core/test_jobs.py
    runs a worker process)."""

    def upload(self, name: str, content: bytes, replace: bool = False, merge: bool = False):
        """The upload, and then (once the worker has checked it) the job page it redirects to."""
        from django.core.files.uploadedfile import SimpleUploadedFile

        data = {"file": SimpleUploadedFile(name, content)}
        data.update({"replace": "on"} if replace else {}, **({"merge": "on"} if merge else {}))
        response = self.client.post("/exchange/orgchart/preview/", data)
        if response.status_code != 303:
            return response
        run_jobs()
        return self.client.get(response["Location"])

    def confirm(self, preview):
        """Confirm the previewed import, run it, and return the job page."""
        action = re.search(r'<form method="post" action="([^"]+)" class="card" id="confirm"', preview.content.decode())
        response = self.client.post(action[1])
        if response.status_code == 303:
            run_jobs()
            return self.client.get(response["Location"])
        return self.client.get(response["Location"]) if response.status_code == 302 else response


class ScreenTest(Screens, ExchangeTest):
    """The Import / export screens through the Django test client."""

    sign_in = False

    def setUp(self):
        super().setUp()
        self.admin = self.make_staff("admin", is_superuser=True)
        self.client.force_login(self.admin)

    def test_only_administrators(self):
        self.client.force_login(self.make_staff("ed", role="editor"))
        for url in ("/exchange/", "/exchange/orgchart/", "/exchange/orgchart/export.zip"):
            self.assertEqual(self.client.get(url).status_code, 403, url)
        self.assertEqual(self.upload("locations.jsonl", b"").status_code, 403)
        self.client.logout()
        self.assertEqual(self.client.get("/exchange/orgchart/").status_code, 302)  # to the sign-in page

    def test_download_preview_confirm(self):
        import io
        import zipfile

        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        page = self.client.get("/exchange/orgchart/")
        self.assertContains(page, "Download the export")
        self.assertContains(page, "holds data now")
        response = self.client.get("/exchange/orgchart/export.zip")
        self.assertEqual(response["Content-Type"], "application/zip")
        body = b"".join(response.streaming_content)
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            self.assertEqual(
                sorted(archive.namelist()), ["employees.jsonl", "locations.jsonl", "manifest.json", "samples.jsonl"]
            )
            self.assertEqual(archive.read("locations.jsonl"), b'{"id":1,"name":"Seattle","version":1}\n')
        exchange_store.clear("orgchart")
        before = snapshot("orgchart:")
        preview = self.upload("orgchart-export.zip", body)
        self.assertContains(preview, "Confirm the import")
        self.assertContains(preview, '<code>locations.jsonl</code></td><td class="num">1</td>', html=False)
        self.assertEqual(snapshot("orgchart:"), before, "the dry run wrote something")
        done = self.confirm(preview)
        self.assertContains(done, "Imported 1 locations")
        self.assertEqual(client().hget("orgchart:{orgchart}:location:1", "name"), "Seattle")
        again = self.confirm(preview)
        self.assertContains(again, "expired or was already imported")

    def test_refusals_and_normalizations_are_shown_and_nothing_can_be_confirmed(self):
        lines = b'{"id": 1, "name": "  Seattle "}\n{"id": 2}\n{"id": 3, "name": "Austin", "x": 1}\nnope\n'
        preview = self.upload("locations.jsonl", lines)
        self.assertContains(preview, "locations.name")
        self.assertContains(preview, "<code>  Seattle </code> → <code>Seattle</code>")
        for where, field, reason in [
            ("locations.jsonl:2", "name", "required"),
            ("locations.jsonl:3", "x", "unknown field"),
            ("locations.jsonl:4", "", "not JSON"),
        ]:
            self.assertContains(preview, f"<td><code>{where}</code></td><td>{field}</td><td>{reason}")
        self.assertNotContains(preview, "Confirm the import")
        self.assertEqual(snapshot("orgchart:"), {})

    def test_an_upload_of_the_wrong_kind_or_size(self):
        response = self.upload("notes.txt", b"hello")
        self.assertContains(response, "neither the app&#x27;s export zip nor one of", status_code=400)
        response = self.upload("bad.zip", b"PK not really")
        self.assertContains(response, "not a zip file", status_code=400)
        with mock.patch("config.exchange.uploads.MAX_UPLOAD", 10):
            response = self.upload("locations.jsonl", b'{"id": 1, "name": "Seattle"}\n')
        self.assertContains(response, "at most 0 MB", status_code=400)

    def test_an_occupied_app_needs_replace(self):
        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        preview = self.upload("locations.jsonl", b'{"id": 1, "name": "Austin"}\n')
        self.assertContains(preview, "already holds data")
        self.assertNotContains(preview, "Confirm the import")
        preview = self.upload("locations.jsonl", b'{"id": 1, "name": "Austin"}\n', replace=True)
        self.assertContains(preview, "This replaces everything this app holds now")
        self.confirm(preview)
        self.assertEqual(client().hget("orgchart:{orgchart}:location:1", "name"), "Austin")


class LineLimitTest(ExchangeTest):
    """Export and import share one limit on a document's line (``files.MAX_LINE``): what the export
    writes, the import reads back."""

    def test_a_post_saved_110_times_with_a_long_body_exports_and_imports_back(self):
        from cms import store

        body = "😀" * 20_000  # the longest body, of characters four bytes long in UTF-8
        content = {"title": "Long", "body": body, "author": "ann", "status": "draft"}
        with override_settings(CMS_REVISIONS_KEPT=0):  # every revision kept: the line grows with each save
            post = store.create_post(content, actor=Actor("ann"), comment="", at=1_767_600_000.0)
            for n in range(1, 111):
                changed = {**content, "body": f"{n}{body[len(str(n)) :]}"}
                store.save_post(
                    post.id, changed, base_version=n, actor=Actor("bob"), comment="", at=1_767_600_000.0 + n
                )
            first = self.export("first", "cms")
            line = (first / "cms" / "posts.jsonl").read_bytes()
            self.assertGreater(len(line), 8 * 1024 * 1024)  # the import refused such a line before
            flush_test_redis()
            self.import_(first)
            self.assertEqual(violations(["cms"]), [])
            self.assertEqual(files_of(self.export("second", "cms")), files_of(first))

    def test_the_export_refuses_a_line_the_import_would_refuse(self):
        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        first = self.export("first", "orgchart")
        size = len((first / "orgchart" / "locations.jsonl").read_bytes()) - 1  # the newline aside
        with mock.patch.object(files, "MAX_LINE", size):
            self.assertEqual(files_of(self.export("again", "orgchart")), files_of(first))
            flush_test_redis()
            self.import_(first)
            self.assertEqual(client().hget("orgchart:{orgchart}:location:1", "name"), "Seattle")
        with mock.patch.object(files, "MAX_LINE", size - 1):
            with self.assertRaisesMessage(CommandError, f"locations.jsonl: the document of id 1 is {size} bytes"):
                self.export("third", "orgchart")
            with self.assertRaisesMessage(CommandError, f"locations.jsonl:1: line longer than {size - 1} bytes"):
                self.import_(first, "--replace")


class MergeTest(ExchangeTest):
    """``--merge``: the documents added to the app's data, one of an id the app holds replacing it,
    none deleted; references may name what the app holds."""

    def test_adds_and_updates_without_deleting(self):
        from orgchart import store

        seattle = store.save_location(None, "Seattle", actor=store.Actor("t"))
        store.save_location(None, "Austin", actor=store.Actor("t"))
        folder = self.base / "in" / "orgchart"
        self.write(folder, "locations.jsonl", [{"id": 2, "name": "Austin TX"}, {"id": 5, "name": "Boston"}])
        employee = {"id": 1, "name": "Cy", "title": "", "manager": None, "location": seattle}
        self.write(folder, "employees.jsonl", [employee])  # at a location only the app holds
        with self.assertRaisesMessage(CommandError, "employees.jsonl:1: location: no location has id 1"):
            self.import_(folder.parent)  # alone, the files name a location they do not hold
        out = self.import_(folder.parent, "--merge")
        self.assertIn("orgchart: imported 2 locations, 1 employees", out)
        names = {pk: store.get_location(pk).name for pk in (1, 2, 5)}
        self.assertEqual(names, {1: "Seattle", 2: "Austin TX", 5: "Boston"})
        self.assertEqual(store.get_employee(1).location, seattle)
        self.assertEqual(violations(["orgchart"]), [])
        self.assertFalse((Path(settings.VAR_DIR) / "imports" / "orgchart").exists())

    def test_a_merge_that_would_break_a_rule_is_refused_with_nothing_written(self):
        from orgchart import store

        store.save_location(None, "Seattle", actor=store.Actor("t"))
        before = snapshot("orgchart:")
        folder = self.base / "in" / "orgchart"
        self.write(folder, "employees.jsonl", [{"id": 1, "name": "Cy", "title": "", "manager": None, "location": 9}])
        with self.assertRaisesMessage(CommandError, "employees.jsonl:1: location: no location has id 9"):
            self.import_(folder.parent, "--merge")
        self.assertEqual(snapshot("orgchart:"), before)

    def test_replace_and_merge_exclude_each_other(self):
        with self.assertRaises(CommandError):
            self.import_(self.base, "--merge", "--replace")


class PreviewCountsTest(Screens, ExchangeTest):
    """The preview (the check job's page) says what the import adds, changes and deletes, entity
    by entity; a replace is confirmed with a danger button that names the deletions; a merge
    deletes nothing."""

    def setUp(self):
        super().setUp()
        self.client.force_login(self.make_staff("admin", is_superuser=True))

    def row(self, entity, documents, added, changed, deleted) -> str:
        cells = "".join(f'<td class="num">{n}</td>' for n in (documents, added, changed, deleted))
        return f'<tr id="change-{entity}"><td><code>{entity}.jsonl</code></td>{cells}</tr>'

    def names(self) -> dict:
        from orgchart import keys, store

        return {pk: store.get_location(pk).name for pk in exchange_store.ids(keys.location)}

    def test_replace_counts_and_danger_confirm(self):
        from orgchart import store

        for name in ("Seattle", "Austin", "Boston"):
            store.save_location(None, name, actor=store.Actor("t"))
        lines = b'{"id": 2, "name": "Austin TX"}\n{"id": 4, "name": "Denver"}\n'
        preview = self.upload("locations.jsonl", lines, replace=True)
        self.assertContains(preview, self.row("locations", 2, 1, 1, 2), html=True)
        self.assertContains(preview, "It deletes 2 locations.")
        button = '<button type="submit" class="danger">Confirm the import and replace the data</button>'
        self.assertContains(preview, button, html=True)
        self.assertEqual(self.names(), {1: "Seattle", 2: "Austin", 3: "Boston"}, "the preview wrote something")
        self.assertContains(self.confirm(preview), "Imported 2 locations")
        self.assertEqual(self.names(), {2: "Austin TX", 4: "Denver"})

    def test_merge_counts_and_confirm(self):
        from orgchart import store

        for name in ("Seattle", "Austin"):
            store.save_location(None, name, actor=store.Actor("t"))
        lines = b'{"id": 2, "name": "Austin TX"}\n{"id": 5, "name": "Denver"}\n'
        preview = self.upload("locations.jsonl", lines, merge=True)
        self.assertContains(preview, self.row("locations", 2, 1, 1, 0), html=True)
        self.assertContains(preview, "nothing is deleted")
        self.assertNotContains(preview, 'class="danger"')
        self.assertContains(self.confirm(preview), "Imported 2 locations")
        self.assertEqual(self.names(), {1: "Seattle", 2: "Austin TX", 5: "Denver"})
        self.assertEqual(violations(["orgchart"]), [])
        both = self.upload("locations.jsonl", lines, replace=True, merge=True)
        self.assertContains(both, "Choose either replace or merge.", status_code=400)
