"""Every school write, counted: one round trip and one command where its keys are known in advance
(a Lua script), two where an id is drawn first (INCR, then the script) or a delete reads its relations."""

import hashlib

from django.test import tag

from config.redis import client, on_cluster
from school import keys, store
from school.documents import Course, Person
from tests.base import RedisTestCase, flush_scripts
from tests.school.helpers import ACTOR, course, instructor, student


@tag("cluster")
class WriteCountTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        store.load_scripts()  # a fresh server's first EVALSHA would also load the script
        self.c, self.i, self.s, self.h = course(), instructor("Grace"), student("Ada Berg"), student("Alan")

    def assertWrite(self, trips: int, commands: int):
        outer = self

        class Both:
            def __enter__(self):
                self.trips = outer.assertRoundTrips(trips)
                self.commands = outer.assertCommands(commands)
                self.trips.__enter__()
                self.commands.__enter__()

            def __exit__(self, *exc):
                self.commands.__exit__(*exc)
                self.trips.__exit__(*exc)

        return Both()

    def test_relation_writes_are_one_round_trip_and_one_command(self):
        c, i, s, h = self.c, self.i, self.s, self.h
        writes = [
            lambda: store.link_instructor(c, i, actor=ACTOR),
            lambda: store.unlink_instructor(c, i, actor=ACTOR),
            lambda: store.enrol(c, s, actor=ACTOR),
            lambda: store.drop(c, s, actor=ACTOR),
            lambda: store.hold_seat(c, h, actor=ACTOR),
            lambda: store.release_hold(c, h, actor=ACTOR),
            lambda: store.hold_seat(c, h, actor=ACTOR),
            lambda: store.confirm_hold(c, h, actor=ACTOR),
        ]
        for write in writes:
            with self.subTest(write=write), self.assertWrite(1, 1) as _:
                write()
        self.assertEqual(client().zrange(keys.course_students(c), 0, -1, withscores=True), [(str(h), float(h))])
        self.assertEqual(client().xlen("core:{school}:events"), 4 + len(writes))  # the four documents, then each write

    def test_every_script_is_loaded_in_one_round_trip(self):
        flush_scripts()
        primaries = len(client().primaries()) if on_cluster() else 1  # a cluster's every primary needs them
        with self.assertRoundTrips(1), self.assertCommands(len(store.core.SCRIPTS) * primaries):
            store.load_scripts()
        digests = [hashlib.sha1(source.encode()).hexdigest() for source in store.core.SOURCES.values()]
        self.assertTrue(all(client().script_exists(*digests)))
        with self.assertWrite(1, 1):  # each first call after it is one round trip, with no NOSCRIPT
            store.person_detail("student", self.s)

    def test_a_read_script_the_server_lost_is_loaded_again(self):
        store.enrol(self.c, self.s, actor=ACTOR)
        flush_scripts()
        primaries = len(client().primaries()) if on_cluster() else 1  # SCRIPT LOAD goes to each, in turn
        with self.assertRoundTrips(2 + primaries):  # EVALSHA answered NOSCRIPT, SCRIPT LOAD, EVALSHA again
            detail = store.person_detail("student", self.s)
        self.assertEqual([(c.id, c.code, c.label) for c in detail.courses], [(self.c, "CS-101", "CS-101 Intro")])
        with self.assertWrite(1, 1):
            store.person_detail("student", self.s)

    def test_a_refusal_is_one_round_trip_too_and_writes_nothing(self):
        store.enrol(self.c, self.s, actor=ACTOR)
        events = client().xlen("core:{school}:events")
        with self.assertWrite(1, 1), self.assertRaisesMessage(store.Refused, "Ada Berg is already enrolled in CS-101"):
            store.enrol(self.c, self.s, actor=ACTOR)
        self.assertEqual(client().xlen("core:{school}:events"), events)

    def test_create_is_two_round_trips_update_one(self):
        with self.assertWrite(2, 2):
            pk = store.save("course", Course(0, "MA-201", "Algebra", "", 10), actor=ACTOR)
        with self.assertWrite(1, 1):
            store.save("course", Course(pk, "MA-202", "Algebra II", "", 12), actor=ACTOR, old_text="MA-201 Algebra")
        with self.assertWrite(2, 2):
            store.save("student", Person(0, "Edsger", "e@example.org"), actor=ACTOR)
        person, loaded = store.get_for_edit("student", self.s)
        with self.assertWrite(1, 1):
            store.save(
                "student", Person(self.s, "Ada B.", "a@example.org"), actor=ACTOR, expected=loaded, old_text=person.name
            )
        self.assertEqual(client().hget(keys.course_codes(), "MA-202"), str(pk))
        self.assertIsNone(client().hget(keys.course_codes(), "MA-201"))

    def test_delete_reads_its_relations_then_runs_one_script(self):
        store.link_instructor(self.c, self.i, actor=ACTOR)
        store.enrol(self.c, self.s, actor=ACTOR)
        store.hold_seat(self.c, self.h, actor=ACTOR)
        other = course("CS-102")
        store.enrol(other, self.s, actor=ACTOR)
        with self.assertWrite(2, 3):  # HGETALL, SMEMBERS; EVALSHA
            store.delete("instructor", self.i, actor=ACTOR)
        with self.assertWrite(2, 4):  # HGETALL, SMEMBERS, ZRANGE; EVALSHA
            store.delete("student", self.h, actor=ACTOR)
        with self.assertWrite(2, 5):  # HGETALL, SMEMBERS, SSCAN, ZRANGE; EVALSHA
            store.delete("course", self.c, actor=ACTOR)
        self.assertEqual(client().smembers(keys.student_courses(self.s)), {str(other)})


class LabelTest(RedisTestCase):
    """The lex index follows a label change, whatever its script; beyond ASCII the store casefolds it."""

    def test_renaming_beyond_ascii(self):
        pk = student("Ærø Straße")
        store.save("student", Person(pk, "Zoë 🦉", "z@example.org"), actor=ACTOR)
        self.assertEqual(client().hget(keys.doc("student", pk), "name"), "Zoë 🦉")
        self.assertEqual(store.enrol(course("CS-100"), pk, actor=ACTOR).name, "Zoë 🦉")
        store.save("student", Person(pk, "Bob", "b@example.org"), actor=ACTOR)
        self.assertEqual(client().zrange(keys.lex("student"), 0, -1), [f"bob\x00{pk}"])
        change = store.enrol(course(), pk, actor=ACTOR)
        self.assertEqual((change.name, change.code), ("Bob", "CS-101"))
        from config.invariants import violations

        self.assertEqual(violations(["school"]), [])
