"""The CMS's import through the bulk path: ids, histories, comments and every derived structure
come back, in a fixed number of round trips per batch, with one activity event per file."""

from io import StringIO

from django.core.management import call_command
from django.test import SimpleTestCase

from cms import exchange, keys
from config import keys as core_keys
from config import trace
from config.exchange import store as exchange_store
from config.exchange.report import Report
from config.exchange.spec import Record
from config.invariants import violations
from config.redis import client
from tests.base import RedisTestCase, files_of, temporary_folder


class BulkImportTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.base = temporary_folder(self)
        call_command("seed", "--scale", "demo", "--only", "cms", stdout=StringIO(), stderr=StringIO())
        call_command("export_data", "--only", "cms", str(self.base / "first"), stdout=StringIO(), stderr=StringIO())
        self.posts = client().zcard(keys.by_updated())
        self.comments = sum(1 for _ in client().scan_iter(keys.comment("*"), count=1000))
        self.counters = (client().get(keys.post_ids()), client().get(keys.comment_ids()))
        exchange_store.clear("cms")
        client().delete(core_keys.events("cms"))

    def import_(self) -> None:
        call_command("import_data", str(self.base / "first"), stdout=StringIO(), stderr=StringIO())

    def test_round_trip_is_exact_and_every_invariant_holds(self):
        self.import_()
        self.assertEqual(violations(["cms"]), [])
        self.assertEqual(client().zcard(keys.by_updated()), self.posts)
        self.assertEqual((client().get(keys.post_ids()), client().get(keys.comment_ids())), self.counters)
        call_command("export_data", "--only", "cms", str(self.base / "second"), stdout=StringIO(), stderr=StringIO())
        self.assertEqual(files_of(self.base / "second" / "cms"), files_of(self.base / "first" / "cms"))

    def test_one_event_per_file(self):
        self.import_()
        events = client().xrange(core_keys.events("cms"))
        self.assertEqual(
            [(e["entity"], e["label"], e["actor"]) for _, e in events],
            [("post", f"{self.posts} imported posts", "import"),
             ("comment", f"{self.comments} imported comments", "import")],
        )  # fmt: skip

    def test_writes_go_in_batches(self):
        """Posts: one bulk script a batch. Comments: one transaction a batch, then one for every post's
        embed and count. Then the runner's one for the id counters."""
        self.assertLessEqual(self.posts, exchange.POST_BATCH * 2)
        with trace.recording() as recorded:
            self.import_()
        trips = recorded.trips("data")
        scripts = [t for t in trips if [c.name for c in t.commands] in (["EVAL"], ["EVALSHA"])]
        transactions = [t for t in trips if t.kind == "transaction"]
        posts = -(-self.posts // exchange.POST_BATCH)
        comments = -(-self.comments // exchange.COMMENT_BATCH)
        self.assertEqual(len(scripts), posts, [str(t.commands[:1]) for t in scripts])
        self.assertEqual(len(transactions), comments + 2, [str(t.commands[:2]) for t in transactions])


class ExportedRevisionTest(SimpleTestCase):
    """A revision as exported passes the field checks unchanged."""

    GOOD = {
        "title": "Modeling hash index", "body": "Line one.\n\n\tLine two.", "author": "ann", "status": "draft",
        "last_saved_by": "bob.b", "created_at": 1767600000.25, "updated_at": 1767600100, "version": 3,
        "comment": "", "changed": ["body", "title"],
    }  # fmt: skip

    def test_an_exported_revision_is_taken_as_it_is(self):
        record = Record(dict(self.GOOD), "posts", "posts.jsonl:1", {}, Report())
        self.assertEqual(exchange._clean_version(record), self.GOOD)
        self.assertEqual(record.errors + [(n, "unknown") for n in record.unknown()], [])


class RevisionNumberingTest(SimpleTestCase):
    """The import refuses what the revision invariant forbids (revisions counting up by one to just below
    the version; none only at version 1), so that what its dry run accepts, every invariant holds after."""

    def cleaned(self, version: int, revisions: list[int]) -> list:
        post = {**ExportedRevisionTest.GOOD, "id": 1, "version": version}
        post["revisions"] = [{**ExportedRevisionTest.GOOD, "version": number} for number in revisions]
        record = Record(post, "posts", "posts.jsonl:1", {}, Report())
        exchange._clean_post(record)
        return [reason for name, reason in record.errors if name == "revisions"]

    def test_revisions_count_up_by_one_to_just_below_the_version(self):
        self.assertEqual(self.cleaned(1, []), [])
        self.assertEqual(self.cleaned(4, [1, 2, 3]), [])
        self.assertEqual(self.cleaned(9, [7, 8]), [])  # the oldest dropped by the cap
        for version, revisions in ((4, [1, 3]), (4, [1, 2]), (3, [2, 1]), (2, [2])):
            self.assertEqual(len(self.cleaned(version, revisions)), 1, (version, revisions))

    def test_a_post_past_version_1_keeps_its_last_revision(self):
        (reason,) = self.cleaned(2, [])
        self.assertIn("at version 2 keeps at least its last revision", reason)
