"""Delete selected on the school's lists: the names are asked about first, then each goes in its own script."""

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

        done = self.client.post("/school/students/delete/", {"ids": [ada, bob], "confirm": "yes"}, follow=True)
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
