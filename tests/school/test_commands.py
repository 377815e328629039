"""The seeder and migrate_schema against a real Redis."""

from io import StringIO

from django.core.management import call_command

from config import keys as config_keys
from config import seeding, trace
from config.invariants import violations
from config.redis import client
from school import keys, store
from school.documents import schema_one_hash
from school.seeds import seed
from tests.base import RedisTestCase
from tests.school.helpers import ACTOR, student


def _legacy(n: int) -> list[int]:
    ids = list(store.reserve_ids("student", n))
    tx = store.transaction()
    for pk in ids:
        store.queue_document(tx, "student", pk, schema_one_hash(f"Old {pk}", f"old{pk}@example.org"))
    tx.execute()
    return ids


def _run(*args, **kwargs) -> str:
    out = StringIO()
    call_command("migrate_schema", *args, stdout=out, stderr=StringIO(), **kwargs)
    return out.getvalue()


class SeedTest(RedisTestCase):
    def test_demo_seed_is_deterministic_and_consistent(self):
        written = seed(seeding.context("school", "demo"))
        r = client()
        self.assertEqual(r.zcard(keys.index("course")), 50)
        self.assertEqual(r.zcard(keys.index("instructor")), 20)
        self.assertEqual(r.zcard(keys.index("student")), 1000)
        versions = store.schema_counts("student")
        self.assertGreater(versions["1"], 200)
        self.assertGreater(versions["2"], 400)
        self.assertGreater(written, 3000)
        self.assertEqual(violations(["school"]), [])
        first = (
            r.hgetall(keys.doc("student", 17)),
            r.smembers(keys.student_courses(17)),
            r.hgetall(keys.doc("course", 3)),
        )
        r.flushdb()
        seed(seeding.context("school", "demo"))
        again = (
            r.hgetall(keys.doc("student", 17)),
            r.smembers(keys.student_courses(17)),
            r.hgetall(keys.doc("course", 3)),
        )
        self.assertEqual(first, again)

    def test_each_batch_is_one_script_with_its_event_inside(self):
        with trace.recording() as recorded:
            seed(seeding.context("school", "demo"))
        trips = [[c.name for c in trip.commands] for trip in recorded.trips("data")]
        # Ids of the courses, instructors and students (an INCRBY each); one script for each batch: the courses,
        # the instructors, the students, the assignments and the enrolments; the write scripts loaded first.
        scripts = [trip for trip in trips if trip in (["EVAL"], ["EVALSHA"])]
        self.assertEqual(len(scripts), 5)
        self.assertFalse([trip for trip in trips if "MULTI" in trip])
        self.assertEqual(
            len(client().xrange(config_keys.events("school"))), 5
        )  # each batch's event, written in its script

    def test_every_seeded_key_is_registered(self):
        from config.keyspace import keyspace

        seed(seeding.context("school", "demo"))
        unregistered = {k for k in client().scan_iter(match="school:*", count=1000) if keyspace.match(k) is None}
        self.assertEqual(unregistered, set())


class MigrateSchemaTest(RedisTestCase):
    def test_migration_is_resumable_and_idempotent(self):
        old = _legacy(60)
        new = student("Already New")
        for _ in range(100):  # a batch is a SCAN step: it may meet only other keys (the name index's)
            out = _run(batch=5, max_batches=1)
            self.assertIn("run again to resume", out)
            self.assertNotEqual(store.migration_cursor("student"), 0)
            remaining = store.schema_counts("student")["1"]
            if remaining < 60:
                break
        self.assertLess(remaining, 60)
        # A second run resumes at the saved cursor and finishes.
        out = _run(batch=5)
        self.assertIn("resuming at SCAN cursor", out)
        self.assertEqual(store.schema_counts("student"), {"1": 0, "2": 61})
        self.assertFalse(client().exists(keys.migration("student")))
        for pk in old[:3] + [new]:
            fields = client().hgetall(keys.doc("student", pk))
            self.assertEqual(fields["schema"], "2")
            self.assertNotIn("email", fields)
        self.assertEqual(client().hget(keys.doc("student", old[0]), "contact"), f"old{old[0]}@example.org")
        # Idempotent: nothing left to do.
        self.assertIn("upgraded 0 to schema 2", _run(batch=500))
        self.assertEqual(violations(["school"]), [])

    def test_dry_run_writes_nothing(self):
        _legacy(12)
        out = _run("--dry-run", batch=500)
        self.assertIn("student: scanned 12, would upgrade 12", out)
        self.assertEqual(store.schema_counts("student"), {"1": 12})
        self.assertFalse(client().exists(keys.migration("student")))

    def test_a_document_edited_by_the_app_keeps_its_edit(self):
        [pk] = _legacy(1)
        from school.documents import Person

        store.save("student", Person(pk, "Edited", "new@example.org", ["new@example.org"]), actor=ACTOR)
        _run(batch=500)
        fields = client().hgetall(keys.doc("student", pk))
        self.assertEqual((fields["name"], fields["contact"]), ("Edited", "new@example.org"))
        self.assertEqual(store.schema_counts("student"), {"1": 0, "2": 1})
