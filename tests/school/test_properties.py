"""Stateful property tests of the school: enrol, drop, hold, confirm, release, holds expiring, assign, unassign.

Random sequences go through ``school.store`` with small bounds (2 seats a
course, 3 courses a student, 2 instructors a course, 2 courses an
instructor), so refusals are frequent; after every step the school
invariants hold and a plain model (the enrolments, the live and the dead
holds, the assignments) agrees with what Redis returns. A hold expires by
moving its deadline into the past and dropping its key, as time would.
"""

from django.test import SimpleTestCase, override_settings
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from config.invariants import violations
from config.redis import client
from school import keys, store
from school.documents import Course, Person
from tests.base import RedisMixin, flush_test_redis
from tests.school.helpers import ACTOR

CAPACITY, PER_STUDENT, PER_COURSE, PER_INSTRUCTOR = 2, 3, 2, 2
PICK = st.integers(0, 10**6)
BOUNDED = hypothesis_settings(max_examples=12, stateful_step_count=30, deadline=None)


class School(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        flush_test_redis()
        save = store.save
        self.courses = [save("course", Course(0, f"C-{n}", f"Course {n}", "", CAPACITY), actor=ACTOR) for n in range(3)]
        self.students = [save("student", Person(0, f"S {n}", f"s{n}@example.com"), actor=ACTOR) for n in range(4)]
        self.teachers = [save("instructor", Person(0, f"I {n}", f"i{n}@example.com"), actor=ACTOR) for n in range(3)]
        self.enrolled: set[tuple[int, int]] = set()
        self.held: set[tuple[int, int]] = set()  # live holds
        self.dead: set[tuple[int, int]] = set()  # expired holds still in the course's holds index
        self.teaches: set[tuple[int, int]] = set()

    def pair(self, c, s):
        return self.courses[c % len(self.courses)], self.students[s % len(self.students)]

    def room(self, course, student, own_hold: bool) -> bool:
        own = 1 if own_hold and (course, student) in self.held else 0
        if (course, student) in self.enrolled:
            return False
        load = sum(c == course for c, _ in self.enrolled) + sum(c == course for c, _ in self.held)
        taken = sum(s == student for _, s in self.enrolled) + sum(s == student for _, s in self.held)
        return taken - own < PER_STUDENT and load - own < CAPACITY

    def seat_write(self, course, student, allowed, change):
        """A seat write that goes through also prunes the dead holds from its course's index; a refused
        one writes nothing, pruning included."""
        if allowed:
            self.dead = {(c, s) for c, s in self.dead if c != course}
            change()

    def attempt(self, call, allowed: bool) -> None:
        try:
            call()
        except store.Refused:
            assert not allowed, "refused, but the model allows it"
            return
        assert allowed, "done, but the model refuses it"

    @rule(c=PICK, s=PICK)
    def enrol(self, c, s):
        course, student = self.pair(c, s)
        allowed = self.room(course, student, own_hold=True)
        self.attempt(lambda: store.enrol(course, student, actor=ACTOR), allowed)
        self.seat_write(course, student, allowed, lambda: self.take(course, student))

    def take(self, course, student):
        self.enrolled.add((course, student))
        self.held.discard((course, student))

    @rule(c=PICK, s=PICK)
    def hold(self, c, s):
        course, student = self.pair(c, s)
        allowed = (course, student) not in self.held and self.room(course, student, own_hold=False)
        self.attempt(lambda: store.hold_seat(course, student, actor=ACTOR), allowed)
        self.seat_write(course, student, allowed, lambda: self.held.add((course, student)))

    @rule(c=PICK, s=PICK)
    def confirm(self, c, s):
        course, student = self.pair(c, s)
        allowed = (course, student) in self.held and self.room(course, student, own_hold=True)
        self.attempt(lambda: store.confirm_hold(course, student, actor=ACTOR), allowed)
        self.seat_write(course, student, allowed, lambda: self.take(course, student))

    @rule(c=PICK, s=PICK)
    def release(self, c, s):
        course, student = self.pair(c, s)
        allowed = (course, student) in self.held | self.dead
        self.attempt(lambda: store.release_hold(course, student, actor=ACTOR), allowed)
        self.held.discard((course, student))
        self.dead.discard((course, student))

    @rule(c=PICK, s=PICK)
    def drop(self, c, s):
        course, student = self.pair(c, s)
        allowed = (course, student) in self.enrolled
        self.attempt(lambda: store.drop(course, student, actor=ACTOR), allowed)
        self.enrolled.discard((course, student))

    @precondition(lambda self: self.held)
    @rule(which=PICK)
    def a_hold_expires(self, which):
        course, student = sorted(self.held)[which % len(self.held)]
        past = store.now_ms() - 1
        pipe = client().pipeline(transaction=True)
        pipe.delete(keys.hold(course, student))
        pipe.zadd(keys.course_holds(course), {str(student): past})
        pipe.zadd(keys.student_holds(student), {str(course): past})
        pipe.execute()
        self.held.discard((course, student))
        self.dead.add((course, student))

    @rule(c=PICK, i=PICK)
    def assign(self, c, i):
        course, teacher = self.courses[c % len(self.courses)], self.teachers[i % len(self.teachers)]
        allowed = (
            (course, teacher) not in self.teaches
            and sum(x == course for x, _ in self.teaches) < PER_COURSE
            and sum(t == teacher for _, t in self.teaches) < PER_INSTRUCTOR
        )
        self.attempt(lambda: store.link_instructor(course, teacher, actor=ACTOR), allowed)
        if allowed:
            self.teaches.add((course, teacher))

    @rule(c=PICK, i=PICK)
    def unassign(self, c, i):
        course, teacher = self.courses[c % len(self.courses)], self.teachers[i % len(self.teachers)]
        self.attempt(lambda: store.unlink_instructor(course, teacher, actor=ACTOR), (course, teacher) in self.teaches)
        self.teaches.discard((course, teacher))

    @invariant()
    def the_school_invariants_hold(self):
        assert violations(["school"]) == []

    @invariant()
    def redis_agrees_with_the_model(self):
        for course in self.courses:
            detail = store.course_detail(course, 0, 100)
            assert {p.id for p in detail.roster} == {s for c, s in self.enrolled if c == course}
            assert detail.enrolled == sum(c == course for c, _ in self.enrolled)
            assert detail.live_holds == sum(c == course for c, _ in self.held)
            assert {p.id for p in detail.instructors} == {t for c, t in self.teaches if c == course}
        for student in self.students:
            detail = store.person_detail("student", student)
            assert {c.id for c in detail.courses} == {c for c, s in self.enrolled if s == student}
            assert {h.course_id for h in detail.holds} == {c for c, s in self.held if s == student}


@override_settings(
    SCHOOL_MAX_COURSES_PER_STUDENT=PER_STUDENT,
    SCHOOL_MAX_INSTRUCTORS_PER_COURSE=PER_COURSE,
    SCHOOL_MAX_COURSES_PER_INSTRUCTOR=PER_INSTRUCTOR,
)
class SchoolPropertiesTest(RedisMixin, SimpleTestCase):
    def test_enrolments_holds_and_assignments_follow_the_model(self):
        run_state_machine_as_test(School, settings=BOUNDED)
