"""Enrol the ticked students in a course at once: one script, within the course's capacity, checked by
the invariants; what each student's enrolment did, said by name."""

from config.invariants import violations
from config.redis import client
from school import keys
from tests.base import RedisTestCase, command_stats
from tests.school.helpers import course, student


def scripts_run() -> int:
    stats = command_stats()
    return sum(int(stats.get(name, {}).get("calls", 0)) for name in ("cmdstat_evalsha", "cmdstat_eval"))


class BulkEnrolTest(RedisTestCase):
    def test_enrol_the_ticked_students_within_capacity_in_one_script(self):
        small = course("MA-201", "Linear Algebra", capacity=2)
        ada, alan, grace = student("Ada"), student("Alan"), student("Grace")
        page = self.client.get("/school/students/").content.decode()
        self.assertIn("Enrol selected", page)
        self.assertIn('data-select-all="ids"', page)
        before = scripts_run()
        response = self.client.post(
            "/school/students/enrol/", {"ids": [ada, alan, grace], "course": "ma-201", "back": "?o=name"}
        )
        self.assertEqual(scripts_run() - before, 1)  # the roster and each student's side: one script
        self.assertRedirects(response, "/school/students/?o=name", fetch_redirect_response=False)
        shown = self.client.get(response.url)
        self.assertContains(shown, "Enrolled 2 students in MA-201: Ada, Alan.")
        self.assertContains(shown, "Grace: not enrolled: MA-201 is full.")
        roster = client().zrange(keys.course_students(small), 0, -1, withscores=True)
        self.assertEqual(roster, sorted((str(s), float(s)) for s in (ada, alan)))  # each scored by their id
        self.assertEqual(client().smembers(keys.student_courses(ada)), {str(small)})
        self.assertEqual(client().scard(keys.student_courses(grace)), 0)
        self.assertEqual(violations(["school"]), [])
        again = self.client.post("/school/students/enrol/", {"ids": [ada], "course": "MA-201"}, follow=True)
        self.assertContains(again, "Ada: already enrolled.")

    def test_an_unknown_code_or_no_tick_enrols_nobody(self):
        ada = student("Ada")
        unknown = self.client.post("/school/students/enrol/", {"ids": [ada], "course": "XX-999"}, follow=True)
        self.assertContains(unknown, "No course has the code “XX-999”; nobody was enrolled.")
        course("MA-201")
        none = self.client.post("/school/students/enrol/", {"course": "MA-201"}, follow=True)
        self.assertContains(none, "Tick the students to enrol first; nobody was enrolled.")
        self.assertEqual(client().scard(keys.student_courses(ada)), 0)
        self.assertRedirects(
            self.client.get("/school/students/enrol/"), "/school/students/", fetch_redirect_response=False
        )
