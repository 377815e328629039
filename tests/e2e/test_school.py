"""A real browser enrols a student from the course page; the roster and the student's page agree."""

import re

from playwright.sync_api import expect

from config.redis import client
from school import keys, store
from tests.base import PASSWORD, BrowserTestCase
from tests.school.helpers import ACTOR, course, instructor, student

# Each column's head as a screen reader names it, and how many cells the table's first row has.
HEADS = """(table) => {
  const t = document.querySelector(table);
  const heads = [...t.querySelectorAll('thead th')].map(th => th.textContent.trim());
  return [heads, t.querySelector('tbody tr').cells.length];
}"""


class SchoolBrowserTest(BrowserTestCase):
    def test_enrol_from_the_course_page(self):
        c = course("CS-101", "Databases", capacity=3)
        store.link_instructor(c, instructor("Grace Hopper"), actor=ACTOR)
        ada = student("Ada Lovelace")
        student("Alan Turing")
        self.sign_in()
        page = self.page
        page.goto(self.url(f"/school/courses/{c}/"))
        page.get_by_text("Nobody is enrolled yet.").wait_for()
        page.fill("#find-course-student", "ada")
        result = page.locator(f'#found-course-student li[data-id="{ada}"]')
        result.get_by_role("button", name="Enrol").click()
        page.wait_for_url(self.url(f"/school/courses/{c}/"))
        page.locator(".message").get_by_text("Ada Lovelace enrolled in CS-101.").wait_for()
        roster = page.locator(f'#roster tr[data-student="{ada}"]')
        self.assertEqual(roster.locator("td a").first.inner_text(), "Ada Lovelace")
        self.assertEqual(page.locator("[data-enrolled]").inner_text(), "1")
        # Every column has a head that names it, the Drop buttons' too (Lighthouse's td-has-header).
        self.assertEqual(page.evaluate(HEADS, "#roster table"), [["#", "Student", "Contact", "Actions"], 4])
        # The picker now says so, from one ZSCORE of the roster.
        page.fill("#find-course-student", "ada")
        page.locator(f'#found-course-student li[data-id="{ada}"] .badge').get_by_text("enrolled").wait_for()
        self.screenshot("school-course")
        roster.locator("td a").first.click()
        page.wait_for_url(self.url(f"/school/students/{ada}/"))
        row = page.locator(f'#courses tr[data-course="{c}"]')
        self.assertEqual(row.locator("td a").first.inner_text(), "CS-101")
        self.assertEqual(page.evaluate(HEADS, "#courses table"), [["Code", "Title", "Actions"], 3])
        self.assertEqual(client().smembers(keys.student_courses(ada)), {str(c)})
        self.assertEqual(client().zrange(keys.course_students(c), 0, -1, withscores=True), [(str(ada), float(ada))])
        self.screenshot("school-student")

    def test_hold_a_seat_counts_down_and_a_full_course_offers_no_enrol(self):
        c = course("MA-201", "Algebra", capacity=1)
        alan = student("Alan Turing")
        kay = student("Alan Kay")
        self.sign_in()
        page = self.page
        page.goto(self.url(f"/school/courses/{c}/"))
        page.fill("#find-course-student", "alan")
        page.locator(f'#found-course-student li[data-id="{alan}"]').get_by_role("button", name="Hold a seat").click()
        page.wait_for_url(self.url(f"/school/courses/{c}/"))
        page.locator(".message").get_by_text("A seat in MA-201 is held for Alan Turing.").wait_for()
        timer = page.locator(f'#holds tr[data-student="{alan}"] .time-left')
        first = timer.inner_text()
        self.assertRegex(first, r"^(10:00|9:[0-5]\d)$")
        expect(page.locator("#holds .time-left").first).not_to_have_text(first)
        self.assertEqual(page.locator("[data-seats-left]").inner_text(), "0")
        page.locator("#full").get_by_text("Full").wait_for()
        self.assertEqual(page.locator("#find-course-student").count(), 0)
        self.screenshot("school-course-full")
        # From the other student's page the course is marked full, with no Enrol to press.
        page.goto(self.url(f"/school/students/{kay}/"))
        page.fill("#find-student-course", "ma")
        found = page.locator(f'#found-student-course li[data-id="{c}"]')
        found.locator(".badge.full").wait_for()
        self.assertEqual(found.get_by_role("button", name="Enrol").count(), 0)
        # Releasing the hold asks first, on a page of its own.
        page.goto(self.url(f"/school/courses/{c}/"))
        page.get_by_role("link", name="Release the seat held for Alan Turing").click()
        page.get_by_role("heading", name="Release the seat held for Alan Turing in MA-201?").wait_for()
        self.assertTrue(client().exists(keys.hold(c, alan)))
        # The session expires before "Yes": after signing in again, the same question, not "Not found".
        self.context.clear_cookies(name="sessionid")
        page.get_by_role("button", name="Yes, release").click()
        page.wait_for_url(re.compile(r"/accounts/login/\?next="))
        page.fill("input[name=username]", "staff")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.get_by_role("heading", name="Release the seat held for Alan Turing in MA-201?").wait_for()
        page.locator(".message").get_by_text("nothing was written").wait_for()
        self.assertTrue(client().exists(keys.hold(c, alan)))
        page.get_by_role("button", name="Yes, release").click()
        page.wait_for_url(self.url(f"/school/courses/{c}/"))
        page.locator(".message").get_by_text("Alan Turing's held seat in MA-201 was released.").wait_for()
        self.assertFalse(client().exists(keys.hold(c, alan)))

    def test_set_algebra_from_the_course_list(self):
        a, b = course("A-1", "Alpha"), course("B-1", "Beta")
        both, only_a = student("Both Sides"), student("Only Alpha")
        for c, s in ((a, both), (b, both), (a, only_a)):
            store.enrol(c, s, actor=ACTOR)
        self.sign_in()
        page = self.page
        page.goto(self.url("/school/courses/"))
        page.get_by_label("Pick A-1").check()
        page.get_by_label("Pick B-1").check()
        page.get_by_role("button", name="in all (ZINTER)").click()
        page.wait_for_url("**/school/algebra/**")
        self.assertEqual(page.locator("[data-total]").inner_text(), "1")
        self.assertEqual(page.locator("#result tbody a").all_inner_texts(), ["Both Sides"])
        page.get_by_label("In the first but none of the others (ZDIFF)").check()
        page.get_by_role("button", name="Compute").click()
        page.wait_for_url("**op=diff**")
        self.assertEqual(page.locator("#result tbody a").all_inner_texts(), ["Only Alpha"])
        self.screenshot("school-algebra")
