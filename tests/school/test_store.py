"""The store against a real Redis: bounds, capacity, holds, deletes, symmetry."""

import time

from django.test import override_settings, tag

from config.invariants import violations
from config.redis import client
from school import keys, store
from tests.base import RedisTestCase
from tests.school.helpers import ACTOR, course, instructor, student


def link(c, i):
    store.link_instructor(c, i, actor=ACTOR)


def enrol(c, s):
    store.enrol(c, s, actor=ACTOR)


class BoundedBothSidesTest(RedisTestCase):
    def test_link_writes_both_sides_with_an_event(self):
        c, i = course(), instructor()
        before = client().xlen("core:{school}:events")
        link(c, i)
        self.assertEqual(client().smembers(keys.course_instructors(c)), {str(i)})
        self.assertEqual(client().smembers(keys.instructor_courses(i)), {str(c)})
        self.assertEqual(client().xlen("core:{school}:events"), before + 1)
        store.unlink_instructor(c, i, actor=ACTOR)
        self.assertFalse(client().exists(keys.course_instructors(c), keys.instructor_courses(i)))

    @override_settings(SCHOOL_MAX_INSTRUCTORS_PER_COURSE=2)
    def test_course_bound_breach_writes_nothing(self):
        c = course()
        i1, i2, i3 = instructor("A"), instructor("B"), instructor("C")
        link(c, i1)
        link(c, i2)
        events = client().xlen("core:{school}:events")
        with self.assertRaisesMessage(store.Refused, "already has 2 instructors"):
            link(c, i3)
        self.assertEqual(client().scard(keys.course_instructors(c)), 2)
        self.assertFalse(client().exists(keys.instructor_courses(i3)))
        self.assertEqual(client().xlen("core:{school}:events"), events)

    @override_settings(SCHOOL_MAX_COURSES_PER_INSTRUCTOR=1)
    def test_instructor_bound_breach_writes_nothing(self):
        c1, c2, i = course("A-1"), course("A-2"), instructor()
        link(c1, i)
        with self.assertRaisesMessage(store.Refused, "already teaches 1 courses"):
            link(c2, i)
        self.assertFalse(client().exists(keys.course_instructors(c2)))
        self.assertEqual(client().smembers(keys.instructor_courses(i)), {str(c1)})

    def test_unknown_ids_are_refused_and_touch_nothing(self):
        c = course()
        with self.assertRaises(store.NotFound):
            link(c, 99)
        with self.assertRaises(store.NotFound):
            enrol(98, student())
        self.assertFalse(client().exists(keys.course_instructors(c), keys.instructor_courses(99)))
        self.assertFalse(client().exists(keys.course_students(98)))


@tag("cluster")
class EnrolmentTest(RedisTestCase):
    def test_enrol_and_drop_write_both_sides(self):
        c, s = course(), student()
        enrol(c, s)
        self.assertTrue(store.is_enrolled(c, s))
        self.assertEqual(client().smembers(keys.student_courses(s)), {str(c)})
        with self.assertRaisesMessage(store.Refused, "already enrolled"):
            enrol(c, s)
        store.drop(c, s, actor=ACTOR)
        self.assertFalse(client().exists(keys.course_students(c), keys.student_courses(s)))

    @override_settings(SCHOOL_MAX_COURSES_PER_STUDENT=2)
    def test_student_bound_breach_writes_nothing(self):
        s = student()
        c1, c2, c3 = course("A-1"), course("A-2"), course("A-3")
        enrol(c1, s)
        enrol(c2, s)
        with self.assertRaisesMessage(store.Refused, "the most a student may have is 2"):
            enrol(c3, s)
        self.assertEqual(client().scard(keys.student_courses(s)), 2)
        self.assertFalse(client().exists(keys.course_students(c3)))

    def test_capacity_counts_enrolled_and_holds(self):
        c = course(capacity=2)
        a, b, d = student("A"), student("B"), student("D")
        enrol(c, a)
        store.hold_seat(c, b, actor=ACTOR)
        with self.assertRaisesMessage(store.Refused, "is full"):
            enrol(c, d)
        with self.assertRaisesMessage(store.Refused, "is full"):
            store.hold_seat(c, d, actor=ACTOR)
        self.assertFalse(store.is_enrolled(c, d))
        # The holder's own seat is free for them.
        store.confirm_hold(c, b, actor=ACTOR)
        self.assertTrue(store.is_enrolled(c, b))
        self.assertFalse(client().exists(keys.hold(c, b)))
        self.assertEqual(client().zcard(keys.course_holds(c)), 0)

    def test_capacity_cannot_drop_below_seats_taken(self):
        from school.documents import Course

        c = course(capacity=3)
        enrol(c, student("A"))
        enrol(c, student("B"))
        with self.assertRaises(store.Refused) as caught:
            store.save("course", Course(c, "CS-101", "Intro", "", 1), actor=ACTOR)
        self.assertEqual(caught.exception.field, "capacity")
        self.assertEqual(client().hget(keys.doc("course", c), "capacity"), "3")


class HoldTest(RedisTestCase):
    def test_hold_is_a_ttl_key_indexed_on_both_sides(self):
        c, s = course(), student()
        expires = store.hold_seat(c, s, actor=ACTOR).expires_ms
        ttl = client().pttl(keys.hold(c, s))
        self.assertGreater(ttl, 590_000)
        self.assertLessEqual(ttl, 600_000)
        self.assertEqual(client().zscore(keys.course_holds(c), s), expires)
        self.assertEqual(client().zscore(keys.student_holds(s), c), expires)
        detail = store.course_detail(c, 0, 25)
        self.assertEqual(detail.live_holds, 1)
        self.assertEqual(detail.seats_left, 29)

    def test_hold_expires_on_its_own_and_frees_the_seat(self):
        c = course(capacity=1)
        a, b = student("A"), student("B")
        store.hold_seat(c, a, actor=ACTOR, seconds=1)
        with self.assertRaisesMessage(store.Refused, "is full"):
            enrol(c, b)
        deadline = time.monotonic() + 5
        while client().exists(keys.hold(c, a)) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(client().exists(keys.hold(c, a)), "Redis expired the hold key by itself")
        self.assertEqual(store.course_detail(c, 0, 25).live_holds, 0)
        enrol(c, b)  # the seat is free again, with no cleanup job having run
        self.assertTrue(store.is_enrolled(c, b))
        with self.assertRaisesMessage(store.Refused, "holds no seat"):
            store.confirm_hold(c, a, actor=ACTOR)
        self.assertEqual(client().zcard(keys.course_holds(c)), 0, "the enrol pruned the dead hold")
        self.assertEqual(violations(["school"]), [])

    def test_release_frees_the_seat(self):
        c, s = course(capacity=1), student()
        store.hold_seat(c, s, actor=ACTOR)
        store.release_hold(c, s, actor=ACTOR)
        self.assertFalse(client().exists(keys.hold(c, s), keys.course_holds(c), keys.student_holds(s)))


class DeleteTest(RedisTestCase):
    def test_deleting_a_course_removes_every_reference(self):
        c, other = course("A-1"), course("A-2")
        i, s1, s2 = instructor(), student("A"), student("B")
        link(c, i)
        link(other, i)
        enrol(c, s1)
        enrol(other, s1)
        store.hold_seat(c, s2, actor=ACTOR)
        store.delete("course", c, actor=ACTOR)
        r = client()
        self.assertFalse(r.exists(keys.doc("course", c), keys.course_students(c), keys.course_instructors(c)))
        self.assertFalse(r.exists(keys.course_holds(c), keys.hold(c, s2), keys.student_holds(s2)))
        self.assertEqual(r.smembers(keys.instructor_courses(i)), {str(other)})
        self.assertEqual(r.smembers(keys.student_courses(s1)), {str(other)})
        self.assertIsNone(r.hget(keys.course_codes(), "A-1"))
        self.assertIsNone(r.zscore(keys.index("course"), c))
        self.assertEqual(violations(["school"]), [])

    def test_deleting_people_removes_every_reference(self):
        c = course()
        i, s, h = instructor(), student("A"), student("B")
        link(c, i)
        enrol(c, s)
        store.hold_seat(c, h, actor=ACTOR)
        store.delete("instructor", i, actor=ACTOR)
        store.delete("student", s, actor=ACTOR)
        store.delete("student", h, actor=ACTOR)
        r = client()
        self.assertFalse(r.exists(keys.course_instructors(c), keys.course_students(c), keys.course_holds(c)))
        self.assertFalse(r.exists(keys.hold(c, h)))
        self.assertEqual(r.hgetall(keys.schemas("student")), {"2": "0"})
        self.assertEqual(violations(["school"]), [])
        with self.assertRaises(store.NotFound):
            store.delete("student", s, actor=ACTOR)


class CodeTest(RedisTestCase):
    def test_codes_are_unique(self):
        course("CS-101")
        with self.assertRaises(store.Refused) as caught:
            course("CS-101", "Another")
        self.assertEqual(caught.exception.field, "code")
        self.assertEqual(client().zcard(keys.index("course")), 1)


class RemoveTest(RedisTestCase):
    def test_removing_what_is_not_there_writes_nothing(self):
        c, s, i = course(), student(), instructor()
        events = client().xlen("core:{school}:events")
        with self.assertRaisesMessage(store.Refused, "is not enrolled in CS-101"):
            store.drop(c, s, actor=ACTOR)
        with self.assertRaisesMessage(store.Refused, "does not teach CS-101"):
            store.unlink_instructor(c, i, actor=ACTOR)
        with self.assertRaisesMessage(store.Refused, "holds no seat in CS-101"):
            store.release_hold(c, s, actor=ACTOR)
        with self.assertRaises(store.NotFound):
            store.drop(404, s, actor=ACTOR)
        self.assertEqual(client().xlen("core:{school}:events"), events)
