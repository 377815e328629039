"""The school's screens: what the user sees, what Redis holds, and the round trips."""

from django.test import override_settings, tag

from config.redis import client, on_cluster
from school import keys, store
from school.documents import schema_one_hash
from tests.base import RedisTestCase, command_stats, reset_command_stats
from tests.school.helpers import ACTOR, course, instructor, student


def legacy_student(name: str, email: str) -> int:
    """A schema-1 student as the seeder writes part of them."""
    pk = client().incr(keys.ids("student"))
    tx = store.transaction()
    store.queue_document(tx, "student", pk, schema_one_hash(name, email))
    tx.execute()
    return pk


@tag("cluster")
class ListTest(RedisTestCase):
    def test_lists_are_one_command_and_show_rows(self):
        c = course("CS-101", "Databases")
        s = student("Ada Lovelace")
        store.enrol(c, s, actor=ACTOR)
        instructor("Grace Hopper")
        for url, text in (
            ("/school/courses/", "Databases"),
            ("/school/students/", "Ada Lovelace"),
            ("/school/instructors/", "Grace Hopper"),
        ):
            with self.assertRoundTrips(1), self.assertCommands(1):
                response = self.client.get(url)
            self.assertContains(response, text)
            self.assertContains(response, "pattern-note")
            self.assertContains(response, "round trip")

    def test_search_sort_and_paging(self):
        for n in range(30):
            student(f"Student {n:02d}")
        student("Zed")
        with self.assertRoundTrips(2):
            response = self.client.get("/school/students/?q=student&o=-name")
        names = [row.doc.name for row in response.context["page"].object_list]
        self.assertEqual(names[0], "Student 29")
        self.assertEqual(response.context["page"].paginator.count, 30)
        self.assertNotContains(response, "Zed")
        response = self.client.get("/school/students/?q=student&page=2")
        self.assertEqual(
            [r.doc.name for r in response.context["page"].object_list], [f"Student {n}" for n in range(25, 30)]
        )
        response = self.client.get("/school/students/?o=-id")
        self.assertEqual(response.context["page"].object_list[0].doc.name, "Zed")
        past = self.client.get("/school/students/?page=9", follow=True)  # past the end: the last page, said
        self.assertEqual(past.redirect_chain, [("/school/students/?page=2", 302)])
        self.assertContains(past, "Page 9 is past the end of the list")

    def test_the_column_heads_sort_and_keep_the_search(self):
        student("Ada")
        response = self.client.get("/school/students/?q=ad&o=-name")
        self.assertContains(response, '<th><a href="?q=ad&amp;o=name">Name</a> ▼</th>', html=False)
        self.assertContains(response, '<th><a href="?q=ad&amp;o=id">#</a> </th>', html=False)
        course("CS-101")
        response = self.client.get("/school/courses/")
        self.assertContains(response, '<th><a href="?o=-code">Code</a> ▲</th><th>Title</th>', html=False)
        self.assertContains(response, '<label><input type="checkbox" data-select-all="c"', html=False)
        self.assertContains(response, "> Compare</label></th>", html=False)  # each checkbox column labelled
        self.assertContains(response, "> Delete</label></th>", html=False)

    def test_htmx_search_renders_the_results_partial(self):
        student("Ada")
        response = self.client.get("/school/students/?q=ad", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results")
        self.assertContains(response, "Ada")
        self.assertNotContains(response, "<h1>")

    def test_empty_states(self):
        self.assertContains(self.client.get("/school/courses/"), "No courses yet.")
        self.assertContains(self.client.get("/school/students/?q=nobody"), "Nothing matches.")

    def test_student_list_counts_schema_versions(self):
        legacy_student("Old One", "old@example.org")
        legacy_student("Old Two", "two@example.org")
        student("New")
        response = self.client.get("/school/students/")
        self.assertEqual(response.context["versions"], {"1": 2, "2": 1})
        self.assertContains(response, "schema 1: <strong>2</strong>", html=False)
        self.assertContains(response, "old@example.org")  # schema 1 read as contact

    def test_stored_text_is_escaped(self):
        student("<script>alert(1)</script>")
        response = self.client.get("/school/students/")
        self.assertContains(response, "&lt;script&gt;alert(1)&lt;/script&gt;")
        self.assertNotContains(response, "<script>alert(1)")


class FormTest(RedisTestCase):
    def test_add_course(self):
        response = self.client.post(
            "/school/courses/add/", {"code": "cs-101", "title": "Databases", "description": "", "capacity": "20"}
        )
        pk = int(client().hget(keys.course_codes(), "CS-101"))
        self.assertRedirects(response, f"/school/courses/{pk}/")
        self.assertEqual(client().hgetall(keys.doc("course", pk))["title"], "Databases")
        self.assertEqual(client().xrevrange("core:{school}:events", count=1)[0][1]["verb"], "created")

    def test_bad_input_is_shown_beside_the_field_and_writes_nothing(self):
        response = self.client.post("/school/courses/add/", {"code": "no spaces!", "title": "", "capacity": "0"})
        self.assertEqual(response.status_code, 200)
        form = response.context["form"]
        self.assertIn("code", form.errors)
        self.assertIn("title", form.errors)
        self.assertIn("capacity", form.errors)
        self.assertContains(response, 'class="field-error"')
        self.assertFalse(client().exists(keys.ids("course"), keys.index("course")))

    def test_duplicate_code_is_a_field_error(self):
        course("CS-101")
        response = self.client.post("/school/courses/add/", {"code": "CS-101", "title": "Again", "capacity": "5"})
        self.assertEqual(response.context["form"].errors["code"], ["Course code CS-101 is taken by another course."])
        self.assertEqual(client().zcard(keys.index("course")), 1)

    def test_editing_a_schema_one_person_upgrades_it(self):
        pk = legacy_student("Old", "old@example.org")
        with self.assertRoundTrips(1):
            response = self.client.get(f"/school/students/{pk}/edit/")
        self.assertContains(response, "Stored at schema 1")
        self.assertEqual(response.context["form"].initial["contact"], "old@example.org")
        version = response.context["form"].initial["version"]
        response = self.client.post(
            f"/school/students/{pk}/edit/",
            {"name": "Old Renamed", "contact": "old@example.org", "emails": "other@example.org", "version": version},
        )
        self.assertRedirects(response, f"/school/students/{pk}/")
        stored = client().hgetall(keys.doc("student", pk))
        self.assertEqual(stored["schema"], "2")
        self.assertNotIn("email", stored)
        self.assertEqual(stored["emails"], '["old@example.org", "other@example.org"]')
        self.assertEqual(client().hgetall(keys.schemas("student")), {"1": "0", "2": "1"})

    def test_bad_email_is_a_field_error(self):
        response = self.client.post("/school/instructors/add/", {"name": "X", "contact": "nope", "emails": "bad"})
        self.assertIn("contact", response.context["form"].errors)
        self.assertIn("emails", response.context["form"].errors)
        self.assertFalse(client().exists(keys.index("instructor")))

    def test_unknown_ids_are_404(self):
        for url in (
            "/school/courses/9/",
            "/school/courses/9/edit/",
            "/school/courses/9/delete/",
            "/school/students/9/",
            "/school/instructors/9/edit/",
        ):
            self.assertEqual(self.client.get(url).status_code, 404, url)
        self.assertEqual(self.client.post("/school/courses/9/delete/").status_code, 404)
        self.assertEqual(self.client.get("/school/courses/abc/").status_code, 404)

    def test_delete_confirms_then_deletes(self):
        c, s = course(), student()
        store.enrol(c, s, actor=ACTOR)
        with self.assertRoundTrips(1):
            response = self.client.get(f"/school/students/{s}/delete/")
        self.assertContains(response, "Yes, delete")
        self.assertTrue(client().exists(keys.doc("student", s)))
        response = self.client.post(f"/school/students/{s}/delete/")
        self.assertRedirects(response, "/school/students/")
        self.assertFalse(client().exists(keys.doc("student", s), keys.course_students(c)))


@tag("cluster")
class CourseScreenTest(RedisTestCase):
    def test_course_page_is_one_round_trip_with_paged_roster_and_holds(self):
        c = course(capacity=40)
        i = instructor("Grace")
        store.link_instructor(c, i, actor=ACTOR)
        people = [student(f"S{n:02d}") for n in range(30)]
        for s in people[:28]:
            store.enrol(c, s, actor=ACTOR)
        store.hold_seat(c, people[29], actor=ACTOR)
        with self.assertRoundTrips(1):
            response = self.client.get(f"/school/courses/{c}/")
        self.assertContains(response, "Grace")
        self.assertContains(response, 'data-enrolled="28"')
        self.assertContains(response, 'data-holds="1"')
        self.assertContains(response, 'data-seats-left="11"')
        self.assertContains(response, "S29")  # the holder, with the time left
        self.assertContains(response, 'class="time-left" data-seconds="')
        self.assertEqual(len(response.context["roster_page"].object_list), 25)
        with self.assertRoundTrips(1):
            response = self.client.get(f"/school/courses/{c}/?page=2", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="roster")
        # The partial alone: the roster's rows of the second page
        self.assertEqual(response.content.decode().count("<tr data-student="), 3)
        for name in ("S25", "S26", "S27"):
            self.assertContains(response, f">{name}</a>")
        self.assertNotContains(response, ">S24</a>")
        self.assertNotContains(response, "<h1>")

    def test_roster_is_never_read_whole(self):
        c = course()
        for n in range(30):
            store.enrol(c, student(f"S{n:02d}"), actor=ACTOR)
        reset_command_stats()
        with self.assertRoundTrips(1), self.assertCommands(1):
            response = self.client.get(f"/school/courses/{c}/")
        self.assertEqual(len(response.context["roster_page"].object_list), 25)
        stats = command_stats()
        # The page is one ZRANGE of 25 ranks of the roster (kept in id order), joined one HMGET a row (each
        # row's fields at once), on one server as on a cluster: the roster is never loaded (SMEMBERS, a
        # scan) or sorted (SORT of it), and the 5 students past the page are never read.
        self.assertEqual(stats["cmdstat_zrange"]["calls"], 1)
        self.assertEqual(stats["cmdstat_hmget"]["calls"], 25)
        for whole in ("cmdstat_smembers", "cmdstat_sscan", "cmdstat_zscan", "cmdstat_hget"):
            self.assertNotIn(whole, stats)
        if not on_cluster():  # SORT itself, in the read script, of the instructors and the holders (none)
            self.assertEqual(stats["cmdstat_sort"]["calls"], 2)

    def test_enrol_from_the_course_page(self):
        c, s = course(), student("Ada")
        response = self.client.post(f"/school/courses/{c}/enrol/", {"other": s})
        self.assertRedirects(response, f"/school/courses/{c}/")
        self.assertEqual(client().zscore(keys.course_students(c), s), s)
        self.assertTrue(client().sismember(keys.student_courses(s), c))
        page = self.client.get(f"/school/students/{s}/")
        self.assertContains(page, "CS-101")

    @override_settings(SCHOOL_MAX_INSTRUCTORS_PER_COURSE=1)
    def test_bound_breach_is_a_clear_error_and_writes_nothing(self):
        c = course()
        store.link_instructor(c, instructor("A"), actor=ACTOR)
        other = instructor("B")
        response = self.client.post(f"/school/courses/{c}/assign/", {"other": other})
        self.assertEqual(response.status_code, 409)
        self.assertContains(response, "already has 1 instructors, the most a course may have", status_code=409)
        self.assertFalse(client().exists(keys.instructor_courses(other)))

    def test_full_course_refuses_from_the_student_page(self):
        c = course(capacity=1)
        store.enrol(c, student("First"), actor=ACTOR)
        s = student("Late")
        response = self.client.post(f"/school/students/{s}/enrol/", {"other": c})
        self.assertContains(response, "is full", status_code=409)
        self.assertFalse(client().exists(keys.student_courses(s)))

    def test_hold_confirm_and_release_from_the_course_page(self):
        c, a, b = course(), student("A"), student("B")
        self.client.post(f"/school/courses/{c}/hold/", {"other": a})
        self.client.post(f"/school/courses/{c}/hold/", {"other": b})
        self.assertTrue(client().exists(keys.hold(c, a)))
        self.client.post(f"/school/courses/{c}/confirm/", {"other": a})
        self.client.post(f"/school/courses/{c}/release/", {"other": b})
        self.assertEqual(client().zscore(keys.course_students(c), a), a)
        self.assertFalse(client().exists(keys.hold(c, a), keys.hold(c, b), keys.course_holds(c)))

    def test_relations_edited_from_instructor_and_student_pages(self):
        c, i, s = course(), instructor(), student()
        self.client.post(f"/school/instructors/{i}/assign/", {"other": c})
        self.client.post(f"/school/students/{s}/enrol/", {"other": c})
        self.assertTrue(client().sismember(keys.course_instructors(c), i))
        self.assertEqual(client().zscore(keys.course_students(c), s), s)
        with self.assertRoundTrips(1):  # the courses of an instructor: SORT … GET in the same pipeline
            self.assertContains(self.client.get(f"/school/instructors/{i}/"), "CS-101")
        self.client.post(f"/school/instructors/{i}/unassign/", {"other": c})
        self.client.post(f"/school/students/{s}/drop/", {"other": c})
        self.assertFalse(client().exists(keys.course_instructors(c), keys.course_students(c)))

    def test_bad_relation_posts(self):
        c = course()
        self.assertEqual(self.client.post(f"/school/courses/{c}/enrol/", {"other": "x"}).status_code, 409)
        self.assertEqual(self.client.post(f"/school/courses/{c}/explode/", {"other": 1}).status_code, 404)
        self.assertEqual(self.client.post("/school/courses/77/enrol/", {"other": 1}).status_code, 404)
        self.assertEqual(self.client.post("/school/courses/77/drop/", {"other": 1}).status_code, 404)
        self.assertEqual(self.client.post("/school/instructors/77/unassign/", {"other": c}).status_code, 404)
        self.assertFalse(client().exists(keys.course_students(77), keys.instructor_courses(77)))
        self.assertRedirects(self.client.get(f"/school/courses/{c}/enrol/"), f"/school/courses/{c}/")  # no bare 405
        response = self.client.post(f"/school/courses/{c}/enrol/", {"other": 55})
        self.assertContains(response, "student 55 does not exist", status_code=409)
        self.assertFalse(client().exists(keys.course_students(c), keys.student_courses(55)))

    def test_picker_marks_members_with_zscore_of_the_roster(self):
        c = course()
        a, b = student("Ada"), student("Adam")
        store.enrol(c, a, actor=ACTOR)
        with self.assertRoundTrips(2) as trace:
            response = self.client.get(f"/school/find/course-student/{c}/?q=ad", HTTP_HX_REQUEST="true")
        asked = [cmd.name for t in trace.round_trips for cmd in t.commands if keys.course_students(c) in cmd.keys]
        self.assertEqual(asked, ["ZCARD", "ZSCORE", "ZSCORE"])  # the seats left, then each candidate
        self.assertContains(response, "enrolled", count=1)
        self.assertContains(response, f'<li data-id="{b}">')
        self.assertContains(response, "Hold a seat")
        self.assertEqual(self.client.get(f"/school/find/nope/{c}/?q=a").status_code, 404)


class AlgebraTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.a, self.b, self.c = course("A-1", capacity=100), course("B-1"), course("C-1")
        self.people = {name: student(name) for name in ("Ann", "Bob", "Cat", "Dan")}
        for name, courses in {
            "Ann": [self.a, self.b],
            "Bob": [self.a],
            "Cat": [self.b, self.c],
            "Dan": [self.a, self.c],
        }.items():
            for c in courses:
                store.enrol(c, self.people[name], actor=ACTOR)

    def names(self, response):
        return sorted(p.name for p in response.context["page"].object_list)

    def test_inter_union_diff(self):
        with self.assertRoundTrips(1):
            response = self.client.get(f"/school/algebra/?op=inter&c={self.a}&c={self.b}")
        self.assertEqual(self.names(response), ["Ann"])
        self.assertContains(response, 'data-total="1"')
        response = self.client.get(f"/school/algebra/?op=union&c={self.b}&c={self.c}")
        self.assertEqual(self.names(response), ["Ann", "Cat", "Dan"])
        response = self.client.get(f"/school/algebra/?op=diff&c={self.a}&c={self.b}&c={self.c}")
        self.assertEqual(self.names(response), ["Bob"])

    def test_temporary_key_expires_within_a_minute(self):
        self.client.get(f"/school/algebra/?op=union&c={self.a}&c={self.b}")
        key = keys.algebra("union", [self.a, self.b])
        self.assertTrue(0 < client().ttl(key) <= 60)

    def test_results_are_paged(self):
        many = [student(f"Extra {n:02d}") for n in range(30)]
        for s in many:
            store.enrol(self.a, s, actor=ACTOR)
        response = self.client.get(f"/school/algebra/?op=diff&c={self.a}&c={self.c}&page=2")
        self.assertEqual(response.context["page"].paginator.count, 32)
        self.assertEqual(len(response.context["page"].object_list), 7)
        self.assertContains(response, f"c={self.a}&amp;c={self.c}")

    def test_codes_form_redirects_to_ids_and_reports_unknown_codes(self):
        response = self.client.get("/school/algebra/?codes=a-1, c-1&op=inter")
        self.assertRedirects(response, f"/school/algebra/?op=inter&c={self.a}&c={self.c}")
        response = self.client.get("/school/algebra/?codes=A-1 ZZ-9&op=inter")
        self.assertContains(response, "No course has the code ZZ-9.")
        response = self.client.get("/school/algebra/?codes=A-1&op=inter")
        self.assertContains(response, "Pick at least two courses.")

    def test_bad_ids_are_404(self):
        self.assertEqual(self.client.get(f"/school/algebra/?c={self.a}&c=x").status_code, 404)
        self.assertEqual(self.client.get(f"/school/algebra/?c={self.a}&c=99").status_code, 404)
        self.assertEqual(self.client.get(f"/school/algebra/?c={self.a}&c={self.b}&op=xor").status_code, 404)


class EditConflictTest(RedisTestCase):
    def test_a_change_made_meanwhile_is_not_overwritten_silently(self):
        from school.documents import Person

        pk = student("Ada")
        response = self.client.get(f"/school/students/{pk}/edit/")
        loaded = response.context["form"].initial["version"]
        self.assertContains(response, f'name="version" value="{loaded}"')
        store.save("student", Person(pk, "Ada Byron", "ada@example.org", ["ada@example.org"]), actor=ACTOR)
        before = client().hgetall(keys.doc("student", pk))
        data = {"name": "Ada L.", "contact": "ada@example.org", "emails": "", "version": loaded}
        response = self.client.post(f"/school/students/{pk}/edit/", data)
        self.assertContains(response, "Someone else saved this student while you were editing", status_code=409)
        # The conflict page shows the other change beside mine, and keeps my input.
        self.assertContains(response, '<th scope="row">Name</th><td>Ada Byron</td><td>Ada L.</td>', status_code=409)
        self.assertContains(response, 'value="Ada L."', status_code=409)
        self.assertEqual(client().hgetall(keys.doc("student", pk)), before)
        # The form now carries the current version: saving again, knowingly, goes through.
        again = response.context["form"].data["version"]
        self.assertNotEqual(again, loaded)
        self.assertContains(response, f'name="version" value="{again}"', status_code=409)
        response = self.client.post(f"/school/students/{pk}/edit/", {**data, "version": again})
        self.assertRedirects(response, f"/school/students/{pk}/")
        self.assertEqual(client().hget(keys.doc("student", pk), "name"), "Ada L.")


class RoundTripSweepTest(RedisTestCase):
    """Every school screen, with data behind it: at most two round trips, and a pattern note."""

    def test_every_screen(self):
        c, other = course("CS-101"), course("CS-102")
        i, s, h = instructor("Grace"), student("Ada"), student("Alan")
        store.link_instructor(c, i, actor=ACTOR)
        store.enrol(c, s, actor=ACTOR)
        store.enrol(other, s, actor=ACTOR)
        store.hold_seat(c, h, actor=ACTOR)
        screens = {  # url: (round trips, commands)
            # One read script each (lua/read_list.lua): the index's page with each row's fields and counts
            "/school/courses/": (1, 1),
            "/school/instructors/": (1, 1),
            "/school/students/": (1, 1),
            # lua/read_course.lua: HGETALL, ZCARD, ZRANGEBYSCORE, ZCOUNT, 3 SORT … GET inside
            f"/school/courses/{c}/": (1, 1),
            # lua/read_person.lua: HGETALL, SORT … GET (and a student's ZRANGEBYSCORE, SORT … GET of the holds)
            f"/school/instructors/{i}/": (1, 1),
            f"/school/students/{s}/": (1, 1),
            f"/school/students/{h}/": (1, 1),
            f"/school/courses/{c}/edit/": (1, 1),
            f"/school/students/{s}/edit/": (1, 1),
            f"/school/courses/{c}/delete/": (1, 1),
            f"/school/instructors/{i}/delete/": (1, 1),
            f"/school/courses/{c}/drop/?other={s}": (1, 3),  # HMGET, HMGET, ZSCORE of the roster
            f"/school/courses/{c}/release/?other={h}": (1, 3),  # HMGET, HMGET, ZSCORE
            "/school/courses/add/": (0, 0),
            "/school/students/add/": (0, 0),
            # lua/algebra.lua: ZINTERSTORE, EXPIRE, SORT … GET of the page, HMGET and ZCARD per course
            f"/school/algebra/?op=inter&c={c}&c={other}": (1, 1),
            "/school/algebra/": (0, 0),
        }
        for url, (trips, commands) in screens.items():
            with self.subTest(url=url), self.assertRoundTrips(trips), self.assertCommands(commands):
                response = self.client.get(url)
            self.assertEqual(response.status_code, 200, url)
            self.assertContains(response, 'class="pattern-note"')
        # The search (its piece's set, the codes starting with it); the seats of each course found (3 each),
        # HMGET, SISMEMBER, ZSCORE each
        with self.assertRoundTrips(2), self.assertCommands(16):
            self.client.get(f"/school/find/student-course/{s}/?q=cs", HTTP_HX_REQUEST="true")
        with self.assertRoundTrips(1), self.assertCommands(1):
            self.client.get("/school/algebra/?codes=CS-101,CS-102&op=union")


class AskFirstTest(RedisTestCase):
    """Dropping, removing an instructor and releasing a hold ask first, on a page whose button POSTs."""

    def setUp(self):
        super().setUp()
        self.c, self.i, self.s, self.h = course(), instructor("Grace Hopper"), student("Ada Berg"), student("Alan")
        store.link_instructor(self.c, self.i, actor=ACTOR)
        store.enrol(self.c, self.s, actor=ACTOR)
        store.hold_seat(self.c, self.h, actor=ACTOR)

    def test_the_pages_link_to_a_confirmation_not_a_post(self):
        page = self.client.get(f"/school/courses/{self.c}/")
        for action, other in (("unassign", self.i), ("drop", self.s), ("release", self.h)):
            self.assertContains(page, f'href="/school/courses/{self.c}/{action}/?other={other}&amp;next=')
            self.assertNotContains(page, f'action="/school/courses/{self.c}/{action}/"')
        page = self.client.get(f"/school/students/{self.s}/")
        self.assertContains(page, f'href="/school/students/{self.s}/drop/?other={self.c}&amp;next=')

    def test_confirmation_pages_write_nothing_then_the_post_does(self):
        cases = (
            ("courses", self.c, "drop", self.s, "Drop Ada Berg from CS-101?", "Ada Berg dropped from CS-101."),
            (
                "courses",
                self.c,
                "unassign",
                self.i,
                "Remove Grace Hopper from the instructors of CS-101?",
                "Grace Hopper no longer teaches CS-101.",
            ),
            (
                "students",
                self.h,
                "release",
                self.c,
                "Release the seat held for Alan in CS-101?",
                "Alan&#x27;s held seat in CS-101 was released.",
            ),
        )
        for plural, pk, action, other, question, done in cases:
            url = f"/school/{plural}/{pk}/{action}/"
            with self.subTest(action=action), self.assertRoundTrips(1):
                page = self.client.get(url, {"other": other})
            self.assertContains(page, question)
            self.assertContains(page, f"Yes, {action}")
            self.assertContains(page, f'<form method="post" action="{url}">')
            response = self.client.post(url, {"other": other}, follow=True)
            self.assertContains(response, done)
        self.assertFalse(client().exists(keys.course_students(self.c), keys.course_instructors(self.c)))
        self.assertFalse(client().exists(keys.hold(self.c, self.h), keys.course_holds(self.c)))

    def test_a_pair_that_is_gone_offers_nothing_to_confirm(self):
        store.drop(self.c, self.s, actor=ACTOR)
        page = self.client.get(f"/school/courses/{self.c}/drop/", {"other": self.s})
        self.assertContains(page, "Nothing to do")
        self.assertNotContains(page, "Yes, drop")
        self.assertEqual(self.client.get(f"/school/courses/{self.c}/drop/", {"other": 999}).status_code, 404)
        self.assertEqual(self.client.get(f"/school/courses/{self.c}/drop/").status_code, 404)
        held = self.client.get(f"/school/courses/{self.c}/hold/", {"other": self.s})
        self.assertRedirects(held, f"/school/courses/{self.c}/")  # an action without a question: its page


class MessagesTest(RedisTestCase):
    def test_success_messages_name_the_objects(self):
        c, i, s = course("CS101"), instructor("Grace Hopper"), student("Ada Berg")
        cases = (
            (f"/school/courses/{c}/enrol/", s, "Ada Berg enrolled in CS101."),
            (f"/school/courses/{c}/drop/", s, "Ada Berg dropped from CS101."),
            (f"/school/students/{s}/hold/", c, "A seat in CS101 is held for Ada Berg."),
            (f"/school/students/{s}/confirm/", c, "Ada Berg enrolled in CS101: the held seat is confirmed."),
            (f"/school/instructors/{i}/assign/", c, "Grace Hopper now teaches CS101."),
        )
        for url, other, message in cases:
            with self.subTest(url=url):
                response = self.client.post(url, {"other": other}, follow=True)
                self.assertContains(response, message)
                self.assertNotContains(response, f"#{other}")


class FullCourseTest(RedisTestCase):
    def test_a_full_course_says_so_and_offers_no_enrol(self):
        c = course("MA-201", capacity=1)
        store.hold_seat(c, student("Alan Turing"), actor=ACTOR)
        waiting = student("Alan Kay")
        page = self.client.get(f"/school/courses/{c}/")
        self.assertContains(page, 'id="full"')
        self.assertContains(page, "MA-201 is full")
        self.assertNotContains(page, 'id="find-course-student"')
        with self.assertRoundTrips(2):
            found = self.client.get(f"/school/find/student-course/{waiting}/?q=ma", HTTP_HX_REQUEST="true")
        self.assertContains(found, '<span class="badge full">full</span>')
        self.assertNotContains(found, "Enrol")
        self.assertNotContains(found, "Hold a seat")

    def test_a_course_with_room_offers_enrol(self):
        c = course("MA-201", capacity=2)
        s = student("Alan Kay")
        page = self.client.get(f"/school/courses/{c}/")
        self.assertNotContains(page, 'id="full"')
        found = self.client.get(f"/school/find/student-course/{s}/?q=ma", HTTP_HX_REQUEST="true")
        self.assertContains(found, "Enrol")


class HoldTimerTest(RedisTestCase):
    def test_timers_count_down_from_a_static_script(self):
        c, s = course(), student("Alan")
        store.hold_seat(c, s, actor=ACTOR)
        for url in (f"/school/courses/{c}/", f"/school/students/{s}/"):
            page = self.client.get(url)
            self.assertContains(page, 'src="/static/school/holds.js"')
            self.assertContains(page, 'class="time-left" data-seconds="')
            self.assertNotRegex(page.content.decode(), r"<script>(?!</script>)|<script(?![^>]*\bsrc=)[^>]*>")


class UrlsTest(RedisTestCase):
    """Every link and form of a document's page goes to the screen ``school/urls.py`` names for it."""

    def test_a_pages_links_are_the_reversed_ones(self):
        import re

        from django.urls import reverse

        c, held, enrolled, teacher = course("CS-101"), student("Alan"), student("Ada"), instructor("Grace")
        store.enrol(c, enrolled, actor=ACTOR)
        store.hold_seat(c, held, actor=ACTOR)
        store.link_instructor(c, teacher, actor=ACTOR)
        expected = {
            f"/school/courses/{c}/": [
                reverse("school:course_edit", args=[c]),
                reverse("school:course_delete", args=[c]),
                reverse("school:instructor_detail", args=[teacher]),
                reverse("school:course_relation", args=[c, "unassign"]) + f"?other={teacher}",
                reverse("school:student_detail", args=[held]),
                reverse("school:course_relation", args=[c, "confirm"]),
                reverse("school:course_relation", args=[c, "release"]) + f"?other={held}",
                reverse("school:student_detail", args=[enrolled]),
                reverse("school:course_relation", args=[c, "drop"]) + f"?other={enrolled}",
                reverse("school:find", args=["course-instructor", c]),
                reverse("school:find", args=["course-student", c]),
            ],
            f"/school/students/{held}/": [
                reverse("school:student_edit", args=[held]),
                reverse("school:student_delete", args=[held]),
                reverse("school:course_detail", args=[c]),
                reverse("school:student_relation", args=[held, "confirm"]),
                reverse("school:student_relation", args=[held, "release"]) + f"?other={c}",
                reverse("school:find", args=["student-course", held]),
            ],
            f"/school/students/{enrolled}/": [
                reverse("school:student_relation", args=[enrolled, "drop"]) + f"?other={c}",
            ],
            f"/school/instructors/{teacher}/": [
                reverse("school:instructor_edit", args=[teacher]),
                reverse("school:instructor_relation", args=[teacher, "unassign"]) + f"?other={c}",
                reverse("school:find", args=["instructor-course", teacher]),
            ],
            "/school/courses/": [reverse("school:course_detail", args=[c]), reverse("school:algebra")],
            "/school/students/": [reverse("school:student_detail", args=[held])],
        }
        for url, links in expected.items():
            with self.subTest(url=url):
                page = self.client.get(url).content.decode()
                targets = set(re.findall(r'(?:href|action)="([^"]*)"', page))
                targets |= {target.split("&amp;next=")[0] for target in targets}
                for link in links:
                    self.assertIn(link, targets)


class ListCountsTest(RedisTestCase):
    """The list's counts are SCARDs (a roster's ZCARD) run inside its read script, with the rows: exact, in one
    command."""

    def test_each_row_counts_its_sets(self):
        c, other = course("CS-101", "Databases"), course("MA-201", "Algebra")
        s, t, i = student("Ada"), student("Alan"), instructor("Grace")
        store.enrol(c, s, actor=ACTOR)
        store.enrol(c, t, actor=ACTOR)
        store.enrol(other, s, actor=ACTOR)
        store.link_instructor(c, i, actor=ACTOR)
        store.hold_seat(other, t, actor=ACTOR)  # a hold is no enrolment
        with self.assertRoundTrips(1), self.assertCommands(1):
            response = self.client.get("/school/courses/?o=-code")
        rows = response.context["page"].object_list
        self.assertEqual([(r.doc.code, r.counts) for r in rows], [
            ("MA-201", {"students": 1, "instructors": 0}),
            ("CS-101", {"students": 2, "instructors": 1}),
        ])  # fmt: skip
        with self.assertRoundTrips(1), self.assertCommands(1):
            response = self.client.get("/school/students/?o=id")
        self.assertEqual([(r.doc.name, r.counts) for r in response.context["page"].object_list], [
            ("Ada", {"courses": 2}), ("Alan", {"courses": 1}),
        ])  # fmt: skip
        # Two letters: their piece's set beside the names starting with them, then the rows (HMGET, SCARD).
        with self.assertRoundTrips(2), self.assertCommands(7):
            response = self.client.get("/school/students/?q=al")
        self.assertEqual([r.doc.name for r in response.context["page"].object_list], ["Alan"])
        self.assertEqual(response.context["page"].paginator.count, 1)
        response = self.client.get("/school/students/?q=a&o=-name")  # the same range, backwards
        self.assertEqual([r.doc.name for r in response.context["page"].object_list], ["Alan", "Ada"])
