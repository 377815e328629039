"""The find pages keep their context (the course or person named in the title and breadcrumb), say when
more match than they show, and their hints say what the search does."""

import re
from dataclasses import replace

from tests.base import RedisTestCase
from tests.school.helpers import ACTOR, course, student


class FindPageTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.algebra = course("MA-201", "Linear Algebra")
        for n in range(12):
            student(f"Student {n:02}")
        self.ada = student("Ada Lovelace")

    def test_the_page_names_the_course_it_finds_for_and_says_when_more_match(self):
        response = self.client.get(f"/school/find/course-student/{self.algebra}/", {"q": "student"})
        page = response.content.decode()
        self.assertIn("<title>Find a student for MA-201 Linear Algebra", page)
        self.assertIn("<h1>Find a student for MA-201 Linear Algebra</h1>", page)
        crumbs = re.search(r'<nav class="breadcrumbs"[^>]*>(.*?)</nav>', page, re.S).group(1)
        self.assertIn('<a href="/school/courses/">Courses</a>', crumbs)
        self.assertIn(f'<a href="/school/courses/{self.algebra}/">MA-201 Linear Algebra</a> › Find a student', crumbs)
        self.assertEqual(page.count("<li data-id="), 10)
        self.assertIn("10 of 12 shown: type more of the name to find the others.", page)
        few = self.client.get(f"/school/find/course-student/{self.algebra}/", {"q": "lovelace"}).content.decode()
        self.assertNotIn("shown: type more", few)
        self.assertIn("Ada Lovelace", few)

    def test_the_name_typed_whole_comes_first(self):
        student("Ada")
        found = self.client.get(f"/school/find/course-student/{self.algebra}/", {"q": "ada"}).content.decode()
        names = re.findall(r"<span>([^<]+) <span class=\"muted\">#", found)
        self.assertEqual(names[:2], ["Ada", "Ada Lovelace"])

    def test_a_find_page_of_a_missing_course_is_a_404(self):
        self.assertEqual(self.client.get("/school/find/course-student/999/", {"q": "ada"}).status_code, 404)

    def test_hints_say_what_the_search_does(self):
        person_page = self.client.get(f"/school/students/{self.ada}/").content.decode()
        self.assertIn("Enrol in a course (its code, or any part of its title)", person_page)
        self.assertIn('placeholder="Code, or any part of the title…"', person_page)
        self.assertNotIn("code starts with", person_page)
        course_page = self.client.get(f"/school/courses/{self.algebra}/").content.decode()
        self.assertIn('placeholder="Any part of a name…"', course_page)


class CodeDigitsTest(RedisTestCase):
    def test_a_course_codes_digits_find_it_and_a_code_change_moves_it(self):
        from config.invariants import violations
        from school import store

        algebra = course("MA-201", "Linear Algebra")
        course("CS-101", "Intro")
        found = self.client.get("/school/courses/", {"q": "201"})
        self.assertEqual([row.doc.code for row in found.context["page"].object_list], ["MA-201"])
        self.assertEqual(
            [row.doc.code for row in self.client.get("/school/courses/", {"q": "01"}).context["page"].object_list],
            ["CS-101", "MA-201"],
        )
        current = replace(store.get("course", algebra), code="MA-305")
        store.save("course", current, actor=ACTOR, old_text="MA-201 Linear Algebra")
        self.assertEqual(self.client.get("/school/courses/", {"q": "201"}).context["page"].object_list, [])
        self.assertEqual(len(self.client.get("/school/courses/", {"q": "305"}).context["page"].object_list), 1)
        self.assertEqual(violations(["school"]), [])
        store.delete("course", algebra, actor=ACTOR)
        self.assertEqual(self.client.get("/school/courses/", {"q": "305"}).context["page"].object_list, [])
        self.assertEqual(violations(["school"]), [])
