"""The school's import: the bulk path writes every derived structure, keeps ids, logs one event per
file, and refuses what the bounds refuse (leaving nothing behind)."""

import json
import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from config import keys as config_keys
from config import trace
from config.invariants import violations
from config.redis import client
from config.store import Refused
from school import keys, store
from tests.base import RedisTestCase
from tests.school.helpers import ACTOR, course, instructor, student


class SchoolImportTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = Path(tmp.name) / "school"

    def export(self) -> None:
        call_command("export_data", "--only", "school", str(self.folder.parent), stdout=StringIO(), stderr=StringIO())

    def import_(self) -> None:
        call_command("import_data", str(self.folder.parent), stdout=StringIO(), stderr=StringIO())

    def clear(self) -> None:
        client().delete(*client().scan_iter("school:*"))

    def test_import_rebuilds_every_structure_in_batches_with_one_event_per_file(self):
        c1, c2 = course("CS-101", "Intro to Systems", 2), course("MA-201", "Linear Algebra")
        g, a, b = instructor("Grace Hopper"), student("Ada Lovelace"), student("Alan Turing")
        store.link_instructor(c1, g, actor=ACTOR)
        for c, s in ((c1, a), (c1, b), (c2, a)):
            store.enrol(c, s, actor=ACTOR)
        self.export()
        before = {
            k: client().dump(k) for k in client().scan_iter("school:*") if not k.startswith("school:{school}:tmp")
        }
        self.clear()
        events = client().xlen(config_keys.events("school"))
        with trace.recording() as recorded:
            self.import_()
        self.assertEqual(violations("school"), [])
        after = {k: client().dump(k) for k in client().scan_iter("school:*")}
        self.assertEqual(sorted(after), sorted(before))  # every key, indexes and both sides included
        self.assertEqual(store.search_ids("course", "algebra"), [c2])
        self.assertEqual(client().get(keys.ids("student")), str(b))  # the next student gets a new id
        self.assertEqual(student("Next"), b + 1)
        new = client().xrange(config_keys.events("school"))[events:-1]  # the last is the create just above
        self.assertEqual(
            [(fields["actor"], fields["label"]) for _, fields in new],
            [("import", "2 courses"), ("import", "1 instructors"), ("import", "2 students"),
             ("import", "1 assignments"), ("import", "3 enrolments")],
        )  # fmt: skip
        writes = [t for t in recorded.round_trips if t.kind == "transaction"]
        self.assertEqual(len(writes), 11)  # per file: one batch and its summary event; then the id counters

    def test_a_batch_over_a_bound_is_refused_and_nothing_stays(self):
        c, a, b = course("CS-101", "Intro", capacity=1), student("Ada"), student("Alan")
        store.enrol(c, a, actor=ACTOR)
        self.export()
        lines = (self.folder / "enrolments.jsonl").read_text().splitlines()
        lines.append(json.dumps({"student": b, "course": c}))
        (self.folder / "enrolments.jsonl").write_text("\n".join(lines) + "\n")
        self.clear()
        with self.assertRaisesMessage(Refused, f"course {c} has 1 seats: 2 would be taken"):
            self.import_()
        self.assertEqual(list(client().scan_iter("school:*")), [])
