"""The school in the benchmark: many-to-many relations with bounds on both sides.

Redis: a course's roster (a sorted set scored by student id, so a page is a
range) and a student's courses (a set) are kept together, set algebra runs
inside Redis, and an enrolment checks both bounds and writes both sides with
its event. SQL: courses, students, instructors and the join
tables ``enrollments`` and ``courses_instructors``, indexed both ways
(``benchmark_sql``). The school's own seeder writes Redis; its records are
read back for SQL.
"""

from __future__ import annotations

import random
from collections import Counter

from config.activity import Actor
from config.benchmark import Load, Operation, Part, part
from config.benchmark.sql import timed_load
from config.listing import ListState
from config.seeding import SeedContext
from school import benchmark_sql as sql
from school import conf, seeds
from school import store as school
from school.documents import Course, Person

BENCH = Actor("bench")
SEED_SCALE = {"tiny": "demo", "demo": "demo", "large": "large"}  # the school seeder's scales
ENROLMENT_PROBE = 100_000  # enrolments (whole rosters) written alone on another database, for their bytes


def busiest(pairs, side: int) -> list[int]:
    """Ids of one side of a relation, the most related first (ties by id)."""
    counts = Counter(pair[side] for pair in pairs)
    return sorted(counts, key=lambda pk: (-counts[pk], pk))


@part("school", order=20)
class School(Part):
    schema = sql.SCHEMA
    dba_schema = sql.DBA_SCHEMA

    def records(self) -> dict[str, int]:
        return {"courses": len(self.courses), "students": len(self.students), "enrolments": len(self.enrolments)}

    def load_redis(self, run) -> list[Load]:
        written = []
        ctx = SeedContext("school", SEED_SCALE[self.scale], random.Random(f"bench:{self.scale}:school"))
        done = run.timed("school", 0, lambda: written.append(seeds.seed(ctx)))
        done.records = written[0]
        self._read_back()
        done.per_record = {"enrolment": self._enrolment_bytes(run)}
        return [done]

    def _read_back(self) -> None:
        courses = []
        for batch in school.scan_documents("course"):
            courses += [(c.id, c.code, c.title, c.capacity) for c in (Course.from_hash(pk, f) for pk, f in batch)]
        self.courses = sorted(courses)
        self.instructors, self.students = self._people("instructor"), self._people("student")
        self.teaching = sorted((c, i) for c, ids in school.relation_members("teaching", "course") for i in ids)
        self.enrolments = sorted((c, s) for c, ids in school.relation_members("enrolment", "course") for s in ids)

    @staticmethod
    def _people(entity: str) -> list[tuple[int, str, str]]:
        people = []
        for batch in school.scan_documents(entity):
            people += [(p.id, p.name, p.contact) for p in (Person.from_hash(pk, f) for pk, f in batch)]
        return sorted(people)

    def _enrolment_bytes(self, run) -> float:
        """Bytes per enrolment (both sides of the pair): whole rosters written alone, through the store's
        seeding path, on another database of the same server, which is flushed afterwards."""
        probe = self.enrolments[:ENROLMENT_PROBE]
        while len(probe) < len(self.enrolments) and self.enrolments[len(probe)][0] == probe[-1][0]:
            probe.append(self.enrolments[len(probe)])  # whole rosters: a set's encoding depends on its size
        with run.other_database():
            before = run.used_memory()
            for start in range(0, len(probe), 5_000):
                tx = school.transaction()
                for course, student in probe[start : start + 5_000]:
                    school.queue_enrolment(tx, course, student)
                tx.execute()
            return (run.used_memory() - before) / max(1, len(probe))

    def load_sql(self, db) -> list[Load]:
        def write():
            db.insert("courses", self.courses)
            db.insert("instructors", self.instructors)
            db.insert("students", self.students)
            db.insert("courses_instructors", self.teaching)
            db.insert("enrollments", self.enrolments)

        parts = (self.courses, self.instructors, self.students, self.teaching, self.enrolments)
        return [timed_load(db, "school", sum(map(len, parts)), write)]

    def enrolment_pairs(self, limit: int, count: int) -> list[tuple[int, int]]:
        """``count`` (course, student) pairs that can each be enrolled in turn, within capacity and the
        student's bound: the courses with the most free seats, each pair a student taking fewer courses."""
        enrolled = Counter(course for course, _ in self.enrolments)
        taking = Counter(student for _, student in self.enrolments)
        free = {course: capacity - enrolled[course] for course, _, _, capacity in self.courses}
        students = iter(pk for pk, _, _ in self.students if taking[pk] < limit)
        members = set(self.enrolments)
        pairs = []
        for course in sorted(free, key=lambda pk: (-free[pk], pk)):
            while free[course] > 0 and len(pairs) < count:
                student = next(students, None)
                if student is None:
                    break
                if (course, student) not in members:
                    pairs.append((course, student))
                    free[course] -= 1
        if len(pairs) < count:
            raise RuntimeError(f"the school has room for {len(pairs)} enrolments, the run needs {count}")
        return pairs

    def operations(self, runs: int) -> list[Operation]:
        first, second = busiest(self.enrolments, 0)[:2]
        instructor = busiest(self.teaching, 1)[0]
        limit = conf.max_courses_per_student()
        pairs = self.enrolment_pairs(limit, runs + 1)
        course, student = busiest(self.enrolments, 0)[0], busiest(self.enrolments, 1)[0]
        return [
            Operation("4", "students in both of two courses", lambda n: in_both(first, second),
                      lambda db, n: sql.sql_in_both(db, first, second),
                      lambda a, n: sql.orm_in_both(a, first, second),
                      dba=lambda db, n: sql.dba_in_both(db, first, second)),
            Operation("5", "courses of one instructor", lambda n: courses_of(instructor),
                      lambda db, n: sql.sql_courses_of(db, instructor),
                      lambda a, n: sql.orm_courses_of(a, instructor),
                      dba=lambda db, n: sql.dba_courses_of(db, instructor)),
            Operation(
                "10", "enrol a student, within both bounds",
                lambda n: enrol(*pairs[n]),
                lambda db, n: sql.sql_enrol(db, *pairs[n], limit),
                lambda a, n: sql.orm_enrol(a, *pairs[n], limit),
                dba=lambda db, n: sql.dba_enrol(db, *pairs[n], limit),
                check=Operation("10", "read back", lambda n: enrolment_of(*pairs[0]),
                                lambda db, n: sql.sql_enrolment_of(db, *pairs[0]),
                                lambda a, n: sql.orm_enrolment_of(a, *pairs[0]),
                                dba=lambda db, n: sql.dba_enrolment_of(db, *pairs[0])),
                write=True,
            ),
            Operation("11", "a course with its instructors and a page of its roster", lambda n: course_page(course),
                      lambda db, n: sql.sql_course_page(db, course), lambda a, n: sql.orm_course_page(a, course),
                      dba=lambda db, n: sql.dba_course_page(db, course)),
            Operation("12", "courses of one student", lambda n: courses_of_student(student),
                      lambda db, n: sql.sql_courses_of_student(db, student),
                      lambda a, n: sql.orm_courses_of_student(a, student),
                      dba=lambda db, n: sql.dba_courses_of_student(db, student)),
            Operation("13", "first page of the course list, with head counts", lambda n: course_list(),
                      lambda db, n: sql.sql_course_list(db), lambda a, n: sql.orm_course_list(a),
                      dba=lambda db, n: sql.dba_course_list(db)),
            Operation("14", "first page of the student list, with course counts", lambda n: student_list(),
                      lambda db, n: sql.sql_student_list(db), lambda a, n: sql.orm_student_list(a),
                      dba=lambda db, n: sql.dba_student_list(db)),
            Operation("18", "first page of the instructor list, with course counts", lambda n: instructor_list(),
                      lambda db, n: sql.sql_instructor_list(db), lambda a, n: sql.orm_instructor_list(a),
                      dba=lambda db, n: sql.dba_instructor_list(db)),
        ]  # fmt: skip

    @classmethod
    def sql_texts(cls, dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
        return {
            "4": {"postgres": sql.IN_BOTH, "dba": (sql.DBA_IN_BOTH,)},
            "5": {"postgres": sql.COURSES_OF, "dba": (sql.DBA_COURSES_OF,)},
            "11": {"postgres": sql.COURSE_PAGE, "dba": (sql.DBA_COURSE_PAGE,)},
            "12": {"postgres": sql.STUDENT_COURSES, "dba": (sql.DBA_STUDENT_COURSES,)},
            "13": {"postgres": sql.COURSE_LIST, "dba": (sql.DBA_COURSE_LIST,)},
            "14": {"postgres": sql.STUDENT_LIST, "dba": (sql.DBA_STUDENT_LIST,)},
            "18": {"postgres": sql.INSTRUCTOR_LIST, "dba": (sql.DBA_INSTRUCTOR_LIST,)},
        }

    def pages(self) -> list[tuple[str, str]]:
        return [("list", "/school/courses/"), ("detail", f"/school/courses/{busiest(self.enrolments, 0)[0]}/")]


# --- Redis -------------------------------------------------------------------------------------


def in_both(first: int, second: int) -> tuple:
    """4. ZINTERSTORE of the two rosters and one page of it (a range), all inside Redis, with the names."""
    found = school.algebra("inter", [first, second], 0, sql.PAGE)
    return found.total, sorted(found.sizes.items()), [(p.id, p.name) for p in found.students]


def courses_of(instructor: int) -> tuple:
    """5. The instructor's course set (bounded, read whole), then the courses' list fields."""
    detail = school.person_detail("instructor", instructor)
    return detail.person.name, [(c.id, c.code, c.title) for c in detail.courses]


def course_page(course: int) -> tuple:
    """11. The course screen: the course, its instructors and a page of its roster (a range of the sorted
    set), one script."""
    found = school.course_detail(course, 0, sql.PAGE)
    people = [[(p.id, p.name) for p in side] for side in (found.instructors, found.roster)]
    return found.course.code, found.course.title, found.course.capacity, found.enrolled, *people


def courses_of_student(student: int) -> tuple:
    """12. The student screen: the student's course set (bounded), with the courses' list fields."""
    found = school.person_detail("student", student)
    return found.person.name, [(c.id, c.code, c.title) for c in found.courses]


def course_list() -> tuple:
    """13. The course list by id: one script, each row's fields and its two sets' sizes."""
    rows, total, _, _ = school.list_page("course", ListState(order="id"))
    return total, [(r.doc.id, r.doc.code, r.doc.title, r.doc.capacity, *map(int, r.counts.values())) for r in rows]


def student_list(entity: str = "student") -> tuple:
    """14. The student list by id: one script, each row's name and course set's size."""
    rows, total, _, _ = school.list_page(entity, ListState(order="id"))
    return total, [(r.doc.id, r.doc.name, int(r.counts["courses"])) for r in rows]


def instructor_list() -> tuple:
    """18. The instructor list by id: the same script over the instructors."""
    return student_list("instructor")


def enrol(course: int, student: int) -> None:
    """10. Enrol within both bounds, with both sides of the pair and the event."""
    school.enrol(course, student, actor=BENCH)


def enrolment_of(course: int, student: int) -> tuple:
    """After an enrolment: the course's head count and the student's courses."""
    return school.course_detail(course, 0, 1).enrolled, [c.id for c in school.person_detail("student", student).courses]
