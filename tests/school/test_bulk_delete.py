"""Delete selected on the school's lists: the names are asked about first, then they go in one transaction."""

from django.test import tag

from config.invariants import violations
from school import store
from tests.base import RedisTestCase
from tests.school.helpers import ACTOR, course, student


@tag("cluster")
class BulkDeleteTest(RedisTestCase):
    def test_ticked_students_are_named_then_deleted_with_their_enrolments(self):
        cs = course("CS-101", "Intro")
        ada, bob, cy = student("Ada Berg"), student("Bob Lin"), student("Cy Diaz")
        store.enrol(cs, ada, actor=ACTOR)
        store.enrol(cs, bob, actor=ACTOR)

        listing = self.client.get("/school/students/")
        self.assertContains(listing, 'form="bulk-delete"')
        self.assertContains(listing, "Delete selected")

        asked = self.client.post("/school/students/delete/", {"ids": [ada, bob, "99999", "x"]})
        self.assertContains(asked, "Delete 2 students?")
        self.assertContains(asked, "Ada Berg")
        self.assertContains(asked, "Bob Lin")
        self.assertContains(asked, "1 of the selected students no longer exists")
        self.assertIsNotNone(store.get("student", ada))  # nothing deleted until confirmed

        with self.assertRoundTrips(3) as trace:  # each one's relations, then both deletes in one MULTI/EXEC
            confirmed = self.client.post("/school/students/delete/", {"ids": [ada, bob], "confirm": "yes"})
        self.assertEqual([c.name for c in trace.trips("data")[-1].commands], ["MULTI", "EVAL", "EVAL", "EXEC"])
        done = self.client.get(confirmed["Location"])
        self.assertContains(done, "Deleted 2 students with their enrolments and holds: “Ada Berg”, “Bob Lin”.")
        for gone in (ada, bob):
            with self.assertRaises(store.NotFound):
                store.get("student", gone)
        self.assertEqual(store.get("student", cy).name, "Cy Diaz")
        self.assertEqual(store.course_detail(cs, 0, 10).enrolled, 0)
        self.assertEqual(violations(["school"]), [])

    def test_nothing_ticked_deletes_nothing(self):
        student("Ada Berg")
        done = self.client.post("/school/students/delete/", {}, follow=True)
        self.assertContains(done, "Tick the students to delete first; nothing was deleted.")

    def test_courses_delete_beside_the_set_algebra_form(self):
        cs = course("CS-101", "Intro")
        listing = self.client.get("/school/courses/").content.decode()
        self.assertIn('action="/school/algebra/"', listing)
        self.assertIn(f'name="ids" value="{cs}" form="bulk-delete"', listing)
        self.client.post("/school/courses/delete/", {"ids": [cs], "confirm": "yes"})
        with self.assertRaises(store.NotFound):
            store.get("course", cs)

    def test_a_document_whose_relations_changed_in_between_is_read_again_and_deleted(self):
        from unittest import mock

        from school.store import deletes

        cs, ma = course("CS-101", "Intro"), course("MA-201", "Algebra")
        ada, bob = student("Ada Berg"), student("Bob Lin")
        real, calls = deletes.queue_run, []

        def enrol_first(pipe, name, script_keys, args):  # an enrolment lands after the reads, once
            calls.append(1)
            if len(calls) == 1:
                store.enrol(ma, ada, actor=ACTOR)
            return real(pipe, name, script_keys, args)

        with mock.patch.object(deletes, "queue_run", enrol_first):
            deleted, gone = store.delete_many("student", [ada, bob, 99999], actor=ACTOR)
        self.assertEqual((sorted(deleted), gone), (["Ada Berg", "Bob Lin"], 1))
        self.assertEqual(len(calls), 3)  # both deletes, then Ada's again with her new enrolment
        self.assertEqual(store.course_detail(ma, 0, 10).enrolled, 0)
        self.assertEqual(store.course_detail(cs, 0, 10).enrolled, 0)
        self.assertEqual(violations(["school"]), [])
