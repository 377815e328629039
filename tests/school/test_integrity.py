"""Concurrency and the invariants: each check fails when its data is broken."""

import threading

from django.test import override_settings

from config.invariants import violations
from config.redis import client
from school import keys, store
from tests.base import RedisTestCase
from tests.school.helpers import ACTOR, course, instructor, student


def _run_together(functions):
    """Start every function at once (a barrier) and collect what each returned or raised."""
    barrier = threading.Barrier(len(functions))
    results = [None] * len(functions)

    def run(i, fn):
        barrier.wait()
        try:
            results[i] = fn()
        except Exception as exc:  # noqa: BLE001  (the test inspects it)
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(functions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


class ConcurrencyTest(RedisTestCase):
    def test_eight_threads_one_free_seat_exactly_one_enrols(self):
        c = course(capacity=3)
        store.enrol(c, student("Early 1"), actor=ACTOR)
        store.hold_seat(c, student("Early 2"), actor=ACTOR)
        racers = [student(f"Racer {n}") for n in range(8)]
        results = _run_together([lambda s=s: store.enrol(c, s, actor=ACTOR) for s in racers])
        winners = [s for s, r in zip(racers, results) if isinstance(r, store.Change)]
        refusals = [r for r in results if isinstance(r, store.Refused)]
        self.assertEqual(len(winners), 1, results)
        self.assertEqual(len(refusals), 7)
        self.assertTrue(all("is full" in r.message for r in refusals), [r.message for r in refusals])
        self.assertEqual(client().zcard(keys.course_students(c)), 2)
        for s in racers:
            self.assertEqual(client().sismember(keys.student_courses(s), c), s in winners)
        self.assertEqual(violations(["school"]), [])

    def test_concurrent_enrols_drops_and_bulk_enrols_keep_rosters_symmetric_and_in_id_order(self):
        courses = [course(f"C-{n}", capacity=4) for n in range(3)]
        people = [student(f"S {n}") for n in range(8)]
        work = []
        for c in courses:
            for n, s in enumerate(people):
                work.append(lambda c=c, s=s: store.enrol(c, s, actor=ACTOR))
                if n % 3 == 0:
                    work.append(lambda c=c, s=s: store.drop(c, s, actor=ACTOR))
            work.append(lambda c=c: store.enrol_many(c, people[::-1], actor=ACTOR))
        results = _run_together(work)
        unexpected = [r for r in results if isinstance(r, Exception) and not isinstance(r, store.Refused)]
        self.assertEqual(unexpected, [])
        for c in courses:
            roster = client().zrange(keys.course_students(c), 0, -1, withscores=True)
            self.assertLessEqual(len(roster), 4)  # the capacity
            self.assertEqual([score for _, score in roster], [int(member) for member, _ in roster])  # each by id
            for s in people:
                in_roster = client().zscore(keys.course_students(c), s) is not None
                self.assertEqual(in_roster, client().sismember(keys.student_courses(s), c))
        self.assertEqual(violations(["school"]), [])

    def test_eight_threads_holding_the_last_seat(self):
        c = course(capacity=1)
        racers = [student(f"Racer {n}") for n in range(8)]
        results = _run_together([lambda s=s: store.hold_seat(c, s, actor=ACTOR) for s in racers])
        self.assertEqual(sum(1 for r in results if isinstance(r, store.Change)), 1, results)
        self.assertEqual(client().zcard(keys.course_holds(c)), 1)

    @override_settings(SCHOOL_MAX_INSTRUCTORS_PER_COURSE=3, SCHOOL_MAX_COURSES_PER_INSTRUCTOR=3)
    def test_concurrent_link_and_unlink_stay_symmetric_and_bounded(self):
        courses = [course(f"C-{n}") for n in range(4)]
        people = [instructor(f"I {n}") for n in range(4)]
        work = []
        for round_ in range(3):
            for c in courses:
                for i in people:
                    if (c + i + round_) % 2:
                        work.append(lambda c=c, i=i: store.link_instructor(c, i, actor=ACTOR))
                    else:
                        work.append(lambda c=c, i=i: store.unlink_instructor(c, i, actor=ACTOR))
        results = _run_together(work)
        unexpected = [r for r in results if isinstance(r, Exception) and not isinstance(r, store.Refused)]
        self.assertEqual(unexpected, [])
        for c in courses:
            self.assertLessEqual(client().scard(keys.course_instructors(c)), 3)
            for i in people:
                self.assertEqual(
                    client().sismember(keys.course_instructors(c), i),
                    client().sismember(keys.instructor_courses(i), c),
                )
        self.assertEqual(violations(["school"]), [])


class InvariantTest(RedisTestCase):
    def names(self):
        return {inv.name for inv, _ in violations(["school"])}

    def test_clean_data_has_no_violation(self):
        c, i, s = course(), instructor(), student()
        store.link_instructor(c, i, actor=ACTOR)
        store.enrol(c, s, actor=ACTOR)
        self.assertEqual(violations(["school"]), [])

    def test_one_sided_relations_are_found(self):
        c, i, s = course(), instructor(), student()
        client().sadd(keys.course_instructors(c), i)
        client().sadd(keys.student_courses(s), c)
        self.assertIn("courses and instructors list each other (two-way embedding is symmetric)", self.names())
        self.assertIn("rosters and students' course sets list each other (enrolments are symmetric)", self.names())

    def test_a_roster_member_out_of_id_order_is_found(self):
        c, s = course(), student()
        store.enrol(c, s, actor=ACTOR)
        name = "every roster scores each student by their id, so a page of it is a range in id order"
        self.assertNotIn(name, self.names())
        client().zadd(keys.course_students(c), {str(s): 0})
        self.assertIn(name, self.names())

    def test_dangling_ids_and_bad_schemas_are_found(self):
        c = course()
        client().zadd(keys.course_students(c), {"404": 404})
        client().hset(keys.doc("student", 77), mapping={"schema": "3", "name": "X"})
        names = self.names()
        self.assertIn("no id dangles: every related id and every relation's owner is a document", names)
        self.assertIn("every instructor and student is a valid schema 1 or 2 document, every course valid", names)

    def test_capacity_and_bounds_breaches_are_found(self):
        c = course(capacity=1)
        for n in range(2):
            s = student(f"S {n}")
            client().zadd(keys.course_students(c), {str(s): s})
            client().sadd(keys.student_courses(s), c)
        s = student("Busy")
        client().sadd(keys.student_courses(s), *range(1000, 1009))
        names = self.names()
        self.assertIn("no course has more enrolled students plus live holds than its capacity", names)
        self.assertIn("relation bounds hold: 5 instructors a course, 10 courses an instructor, 8 a student", names)

    def test_index_drift_is_found_and_repaired(self):
        from config.invariants import registry

        course()
        student()
        client().hincrby(keys.schemas("student"), "1", 5)
        client().zrem(keys.lex("course"), client().zrange(keys.lex("course"), 0, 0)[0])
        name = "id, name and code indexes and per-version counts match the documents"
        self.assertIn(name, self.names())
        [inv] = [i for i in registry.for_apps(["school"]) if i.name == name]
        inv.repair()
        self.assertNotIn(name, self.names())

    def test_hold_without_ttl_or_index_is_found(self):
        c, s = course(), student()
        client().set(keys.hold(c, s), "x")
        self.assertIn("every seat hold key expires and is indexed on both sides with its deadline", self.names())
