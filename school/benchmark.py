"""The school in the benchmark: many-to-many relations with bounds on both sides.

Redis: a course's roster and a student's courses are two sets kept together,
set algebra runs inside Redis, and an enrolment checks both bounds and writes
both sides with its event. SQL: courses, students, instructors and the join
tables ``enrollments`` and ``courses_instructors``, indexed both ways. The
school's own seeder writes Redis; its records are read back for SQL.
"""

from __future__ import annotations

import random
from collections import Counter

from config.activity import Actor
from config.benchmark import Load, Operation, Part, part
from config.benchmark.sql import timed_load
from config.listing import ListState
from config.seeding import SeedContext
from school import conf, seeds
from school import store as school
from school.documents import Course, Person

PAGE = 25
BENCH = Actor("bench")
SEED_SCALE = {"tiny": "demo", "demo": "demo", "large": "large"}  # the school seeder's scales
ENROLMENT_PROBE = 100_000  # enrolments (whole rosters) written alone on another database, for their bytes

SCHEMA = """
CREATE TABLE courses (
    id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, title TEXT NOT NULL, capacity INTEGER NOT NULL);
CREATE TABLE instructors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);
CREATE TABLE students (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);
CREATE TABLE courses_instructors (
    course_id INTEGER NOT NULL REFERENCES courses (id), instructor_id INTEGER NOT NULL REFERENCES instructors (id),
    PRIMARY KEY (course_id, instructor_id)) {without_rowid};
CREATE INDEX courses_instructors_instructor ON courses_instructors (instructor_id, course_id);
CREATE TABLE enrollments (
    course_id INTEGER NOT NULL REFERENCES courses (id), student_id INTEGER NOT NULL REFERENCES students (id),
    PRIMARY KEY (course_id, student_id)) {without_rowid};
CREATE INDEX enrollments_student ON enrollments (student_id, course_id);
"""


# The DBA's precomputation, as the Redis model keeps it: each course's head count and each student's
# course count (Redis's set sizes) and the number of courses, students and instructors (its index sizes), kept by
# triggers; an enrolment is one call of a function that locks
# the course row, checks both bounds and inserts.
DBA_SCHEMA = """
ALTER TABLE courses ADD COLUMN enrolled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE students ADD COLUMN taking INTEGER NOT NULL DEFAULT 0;
UPDATE courses c SET enrolled = e.n FROM (SELECT course_id, COUNT(*) AS n FROM enrollments GROUP BY course_id) e
 WHERE e.course_id = c.id;
UPDATE students s SET taking = e.n FROM (SELECT student_id, COUNT(*) AS n FROM enrollments GROUP BY student_id) e
 WHERE e.student_id = s.id;

CREATE FUNCTION enrollments_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE courses SET enrolled = enrolled + 1 WHERE id = NEW.course_id;
        UPDATE students SET taking = taking + 1 WHERE id = NEW.student_id;
        RETURN NEW;
    END IF;
    UPDATE courses SET enrolled = enrolled - 1 WHERE id = OLD.course_id;
    UPDATE students SET taking = taking - 1 WHERE id = OLD.student_id;
    RETURN OLD;
END $$;
CREATE TRIGGER enrollments_counted AFTER INSERT OR DELETE ON enrollments
    FOR EACH ROW EXECUTE FUNCTION enrollments_counted();

CREATE TABLE school_counts (entity TEXT PRIMARY KEY, rows BIGINT NOT NULL);
INSERT INTO school_counts SELECT 'courses', COUNT(*) FROM courses;
INSERT INTO school_counts SELECT 'students', COUNT(*) FROM students;
INSERT INTO school_counts SELECT 'instructors', COUNT(*) FROM instructors;
CREATE FUNCTION school_counts_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE school_counts SET rows = rows + CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END WHERE entity = TG_TABLE_NAME;
    RETURN NULL;
END $$;
CREATE TRIGGER courses_counted AFTER INSERT OR DELETE ON courses FOR EACH ROW EXECUTE FUNCTION school_counts_kept();
CREATE TRIGGER students_counted AFTER INSERT OR DELETE ON students FOR EACH ROW EXECUTE FUNCTION school_counts_kept();
CREATE TRIGGER instructors_counted AFTER INSERT OR DELETE ON instructors
    FOR EACH ROW EXECUTE FUNCTION school_counts_kept();

CREATE FUNCTION enrol(course BIGINT, student BIGINT, most INTEGER) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM courses WHERE id = course AND enrolled < capacity FOR UPDATE;
    IF NOT FOUND THEN RETURN FALSE; END IF;
    PERFORM 1 FROM students WHERE id = student AND taking < most FOR UPDATE;
    IF NOT FOUND THEN RETURN FALSE; END IF;
    INSERT INTO enrollments VALUES (course, student);
    RETURN TRUE;
END $$;
"""


def busiest(pairs, side: int) -> list[int]:
    """Ids of one side of a relation, the most related first (ties by id)."""
    counts = Counter(pair[side] for pair in pairs)
    return sorted(counts, key=lambda pk: (-counts[pk], pk))


@part("school", order=20)
class School(Part):
    schema = SCHEMA
    dba_schema = DBA_SCHEMA

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
        """Bytes per enrolment (both sets of the pair): whole rosters written alone, through the store's
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
                      lambda db, n: sql_in_both(db, first, second), lambda a, n: orm_in_both(a, first, second),
                      dba=lambda db, n: dba_in_both(db, first, second)),
            Operation("5", "courses of one instructor", lambda n: courses_of(instructor),
                      lambda db, n: sql_courses_of(db, instructor), lambda a, n: orm_courses_of(a, instructor),
                      dba=lambda db, n: dba_courses_of(db, instructor)),
            Operation(
                "10", "enrol a student, within both bounds",
                lambda n: enrol(*pairs[n]),
                lambda db, n: sql_enrol(db, *pairs[n], limit),
                lambda a, n: orm_enrol(a, *pairs[n], limit),
                dba=lambda db, n: dba_enrol(db, *pairs[n], limit),
                check=Operation("10", "read back", lambda n: enrolment_of(*pairs[0]),
                                lambda db, n: sql_enrolment_of(db, *pairs[0]),
                                lambda a, n: orm_enrolment_of(a, *pairs[0]),
                                dba=lambda db, n: dba_enrolment_of(db, *pairs[0])),
                write=True,
            ),
            Operation("11", "a course with its instructors and a page of its roster", lambda n: course_page(course),
                      lambda db, n: sql_course_page(db, course), lambda a, n: orm_course_page(a, course),
                      dba=lambda db, n: dba_course_page(db, course)),
            Operation("12", "courses of one student", lambda n: courses_of_student(student),
                      lambda db, n: sql_courses_of_student(db, student),
                      lambda a, n: orm_courses_of_student(a, student),
                      dba=lambda db, n: dba_courses_of_student(db, student)),
            Operation("13", "first page of the course list, with head counts", lambda n: course_list(),
                      lambda db, n: sql_course_list(db), lambda a, n: orm_course_list(a),
                      dba=lambda db, n: dba_course_list(db)),
            Operation("14", "first page of the student list, with course counts", lambda n: student_list(),
                      lambda db, n: sql_student_list(db), lambda a, n: orm_student_list(a),
                      dba=lambda db, n: dba_student_list(db)),
            Operation("18", "first page of the instructor list, with course counts", lambda n: instructor_list(),
                      lambda db, n: sql_instructor_list(db), lambda a, n: orm_instructor_list(a),
                      dba=lambda db, n: dba_instructor_list(db)),
        ]  # fmt: skip

    @classmethod
    def sql_texts(cls, dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
        return {
            "4": {"postgres": IN_BOTH, "dba": (DBA_IN_BOTH,)},
            "5": {"postgres": COURSES_OF, "dba": (DBA_COURSES_OF,)},
            "11": {"postgres": COURSE_PAGE, "dba": (DBA_COURSE_PAGE,)},
            "12": {"postgres": STUDENT_COURSES, "dba": (DBA_STUDENT_COURSES,)},
            "13": {"postgres": COURSE_LIST, "dba": (DBA_COURSE_LIST,)},
            "14": {"postgres": STUDENT_LIST, "dba": (DBA_STUDENT_LIST,)},
            "18": {"postgres": INSTRUCTOR_LIST, "dba": (DBA_INSTRUCTOR_LIST,)},
        }

    def pages(self) -> list[tuple[str, str]]:
        return [("list", "/school/courses/"), ("detail", f"/school/courses/{busiest(self.enrolments, 0)[0]}/")]


# --- Redis -------------------------------------------------------------------------------------


def in_both(first: int, second: int) -> tuple:
    """4. SINTERSTORE of the two rosters and one page of it, all inside Redis; then the page's names."""
    found = school.algebra("inter", [first, second], 0, PAGE)
    return found.total, sorted(found.sizes.items()), [(p.id, p.name) for p in found.students]


def courses_of(instructor: int) -> tuple:
    """5. The instructor's course set (bounded, read whole), then the courses' list fields."""
    detail = school.person_detail("instructor", instructor)
    return detail.person.name, [(c.id, c.code, c.title) for c in detail.courses]


def course_page(course: int) -> tuple:
    """11. The course screen: the course, its instructors and a page of its roster, one script."""
    found = school.course_detail(course, 0, PAGE)
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


# --- hand-written SQL --------------------------------------------------------------------------

_BOTH = """FROM enrollments a JOIN enrollments b ON b.course_id = ? AND b.student_id = a.student_id
WHERE a.course_id = ?"""
IN_BOTH = (
    f"SELECT COUNT(*) {_BOTH}",
    "SELECT course_id, COUNT(*) FROM enrollments WHERE course_id IN (?, ?) GROUP BY course_id ORDER BY course_id",
    """SELECT s.id, s.name FROM enrollments a JOIN enrollments b ON b.course_id = ? AND b.student_id = a.student_id
JOIN students s ON s.id = a.student_id
WHERE a.course_id = ?
ORDER BY a.student_id LIMIT ?""",
)
COURSES_OF = (
    "SELECT name FROM instructors WHERE id = ?",
    """SELECT c.id, c.code, c.title FROM courses_instructors ci JOIN courses c ON c.id = ci.course_id
WHERE ci.instructor_id = ? ORDER BY c.id""",
)

COURSE_PAGE = (
    "SELECT code, title, capacity FROM courses WHERE id = ?",
    "SELECT COUNT(*) FROM enrollments WHERE course_id = ?",
    """SELECT i.id, i.name FROM courses_instructors ci JOIN instructors i ON i.id = ci.instructor_id
WHERE ci.course_id = ? ORDER BY i.id""",
    """SELECT s.id, s.name FROM enrollments e JOIN students s ON s.id = e.student_id
WHERE e.course_id = ? ORDER BY e.student_id LIMIT ?""",
)
STUDENT_COURSES = (
    "SELECT name FROM students WHERE id = ?",
    """SELECT c.id, c.code, c.title FROM enrollments e JOIN courses c ON c.id = e.course_id
WHERE e.student_id = ? ORDER BY c.id""",
)
COURSE_LIST = (
    "SELECT COUNT(*) FROM courses",
    """SELECT c.id, c.code, c.title, c.capacity,
       (SELECT COUNT(*) FROM enrollments e WHERE e.course_id = c.id),
       (SELECT COUNT(*) FROM courses_instructors ci WHERE ci.course_id = c.id)
FROM courses c ORDER BY c.id LIMIT ?""",
)
STUDENT_LIST = (
    "SELECT COUNT(*) FROM students",
    """SELECT s.id, s.name, (SELECT COUNT(*) FROM enrollments e WHERE e.student_id = s.id)
FROM students s ORDER BY s.id LIMIT ?""",
)
INSTRUCTOR_LIST = (
    "SELECT COUNT(*) FROM instructors",
    """SELECT i.id, i.name, (SELECT COUNT(*) FROM courses_instructors ci WHERE ci.instructor_id = i.id)
FROM instructors i ORDER BY i.id LIMIT ?""",
)


def sql_in_both(db, first: int, second: int) -> tuple:
    """4. A self-join of enrollments on the student, its count, one page by id, and each roster's size."""
    count, sizes, page = IN_BOTH
    (total,) = db.one(count, (second, first))
    sizes = db.all(sizes, (first, second))
    page = db.all(page, (second, first, PAGE))
    return total, sizes, page


def sql_courses_of(db, instructor: int) -> tuple:
    """5. The instructor, and its courses through the join table."""
    person, courses = COURSES_OF
    (name,) = db.one(person, (instructor,))
    return name, db.all(courses, (instructor,))


def sql_course_page(db, course: int) -> tuple:
    """11. The course, its head count, its instructors and the first page of its roster."""
    row, count, instructors, roster = COURSE_PAGE
    code, title, capacity = db.one(row, (course,))
    (enrolled,) = db.one(count, (course,))
    return code, title, capacity, enrolled, db.all(instructors, (course,)), db.all(roster, (course, PAGE))


def sql_courses_of_student(db, student: int) -> tuple:
    """12. The student, and their courses through the enrolments."""
    person, courses = STUDENT_COURSES
    (name,) = db.one(person, (student,))
    return name, db.all(courses, (student,))


def sql_course_list(db) -> tuple:
    """13. The course count, and a page of courses by id with their roster and instructor counts."""
    return db.counted_page(COURSE_LIST, PAGE)


def sql_student_list(db) -> tuple:
    """14. The student count, and a page of students by id with their course counts."""
    return db.counted_page(STUDENT_LIST, PAGE)


def sql_instructor_list(db) -> tuple:
    """18. The instructor count, and a page of instructors by id with the courses each teaches."""
    return db.counted_page(INSTRUCTOR_LIST, PAGE)


def sql_enrol(db, course: int, student: int, limit: int) -> None:
    """10. Check the course's capacity and the student's bound, then INSERT, in one transaction that locks
    the course (SQLite: the write lock taken first; PostgreSQL: the course row FOR UPDATE) so two
    enrolments cannot both take the last seat."""
    with db.transaction(immediate=True):
        (capacity,) = db.one(f"SELECT capacity FROM courses WHERE id = ?{db.for_update}", (course,))
        (enrolled,) = db.one("SELECT COUNT(*) FROM enrollments WHERE course_id = ?", (course,))
        (taking,) = db.one("SELECT COUNT(*) FROM enrollments WHERE student_id = ?", (student,))
        if enrolled >= capacity or taking >= limit:
            raise school.Refused(f"student {student} cannot enrol in course {course}")
        db.execute("INSERT INTO enrollments VALUES (?, ?)", (course, student))


def sql_enrolment_of(db, course: int, student: int) -> tuple:
    (enrolled,) = db.one("SELECT COUNT(*) FROM enrollments WHERE course_id = ?", (course,))
    courses = [c for (c,) in db.all("SELECT course_id FROM enrollments WHERE student_id = ? ORDER BY course_id",
                                    (student,))]  # fmt: skip
    return enrolled, courses


# --- the DBA's SQL: one statement each, on DBA_SCHEMA ------------------------------------------

DBA_IN_BOTH = """WITH both_courses AS (
    SELECT a.student_id FROM enrollments a
    JOIN enrollments b ON b.course_id = ? AND b.student_id = a.student_id WHERE a.course_id = ?)
SELECT (SELECT COUNT(*) FROM both_courses),
       (SELECT json_agg(json_build_array(id, enrolled) ORDER BY id) FROM courses WHERE id IN (?, ?)),
       (SELECT COALESCE(json_agg(json_build_array(s.id, s.name) ORDER BY s.id), '[]')
          FROM (SELECT student_id FROM both_courses ORDER BY student_id LIMIT ?) page
          JOIN students s ON s.id = page.student_id)"""
DBA_COURSES_OF = """SELECT i.name, COALESCE((SELECT json_agg(json_build_array(c.id, c.code, c.title) ORDER BY c.id)
                          FROM courses_instructors ci JOIN courses c ON c.id = ci.course_id
                         WHERE ci.instructor_id = i.id), '[]')
FROM instructors i WHERE i.id = ?"""
DBA_COURSE_PAGE = """SELECT c.code, c.title, c.capacity, c.enrolled,
       COALESCE((SELECT json_agg(json_build_array(i.id, i.name) ORDER BY i.id)
                   FROM courses_instructors ci JOIN instructors i ON i.id = ci.instructor_id
                  WHERE ci.course_id = c.id), '[]'),
       COALESCE((SELECT json_agg(json_build_array(s.id, s.name) ORDER BY s.id)
                   FROM (SELECT student_id FROM enrollments WHERE course_id = c.id ORDER BY student_id LIMIT ?) page
                   JOIN students s ON s.id = page.student_id), '[]')
FROM courses c WHERE c.id = ?"""
DBA_STUDENT_COURSES = """SELECT s.name, COALESCE((SELECT json_agg(json_build_array(c.id, c.code, c.title) ORDER BY c.id)
                          FROM enrollments e JOIN courses c ON c.id = e.course_id
                         WHERE e.student_id = s.id), '[]')
FROM students s WHERE s.id = ?"""
DBA_COURSE_LIST = """SELECT n.rows, c.id, c.code, c.title, c.capacity, c.enrolled,
       (SELECT COUNT(*) FROM courses_instructors ci WHERE ci.course_id = c.id)
FROM school_counts n CROSS JOIN courses c WHERE n.entity = 'courses' ORDER BY c.id LIMIT ?"""
DBA_STUDENT_LIST = """SELECT n.rows, s.id, s.name, s.taking
FROM school_counts n CROSS JOIN students s WHERE n.entity = 'students' ORDER BY s.id LIMIT ?"""
DBA_INSTRUCTOR_LIST = """SELECT n.rows, i.id, i.name,
       (SELECT COUNT(*) FROM courses_instructors ci WHERE ci.instructor_id = i.id)
FROM school_counts n CROSS JOIN instructors i WHERE n.entity = 'instructors' ORDER BY i.id LIMIT ?"""


def dba_in_both(db, first: int, second: int) -> tuple:
    """4. The self-join once (a CTE): its count and its first page, with both head counts from their rows."""
    total, sizes, page = db.one(DBA_IN_BOTH, (second, first, first, second, PAGE))
    return total, [tuple(size) for size in sizes], [tuple(row) for row in page]


def dba_courses_of(db, instructor: int) -> tuple:
    """5. The instructor's name beside its courses, through the join table, in one row."""
    name, courses = db.one(DBA_COURSES_OF, (instructor,))
    return name, [tuple(course) for course in courses]


def dba_course_page(db, course: int) -> tuple:
    """11. The course with its kept head count, its instructors and its roster's first page, in one row."""
    code, title, capacity, enrolled, instructors, roster = db.one(DBA_COURSE_PAGE, (PAGE, course))
    return code, title, capacity, enrolled, [tuple(p) for p in instructors], [tuple(p) for p in roster]


def dba_courses_of_student(db, student: int) -> tuple:
    """12. The student's name beside their courses, in one row."""
    name, courses = db.one(DBA_STUDENT_COURSES, (student,))
    return name, [tuple(course) for course in courses]


def dba_course_list(db) -> tuple:
    """13. The page by the primary key, the head count from its column, the course count from its row."""
    return db.page_with_total(DBA_COURSE_LIST, (PAGE,))


def dba_student_list(db) -> tuple:
    """14. The page by the primary key, each course count from its column, the student count from its row."""
    return db.page_with_total(DBA_STUDENT_LIST, (PAGE,))


def dba_instructor_list(db) -> tuple:
    """18. The page by the primary key, the courses taught counted from the instructor index (at most 10)."""
    return db.page_with_total(DBA_INSTRUCTOR_LIST, (PAGE,))


def dba_enrol(db, course: int, student: int, limit: int) -> None:
    """10. One call of ``enrol``: the course row locked, both bounds checked against the kept counts."""
    (done,) = db.one("SELECT enrol(?, ?, ?)", (course, student, limit))
    if not done:
        raise school.Refused(f"student {student} cannot enrol in course {course}")


def dba_enrolment_of(db, course: int, student: int) -> tuple:
    enrolled, courses = db.one(
        """SELECT c.enrolled, ARRAY(SELECT course_id FROM enrollments WHERE student_id = ? ORDER BY course_id)
           FROM courses c WHERE c.id = ?""",
        (student, course),
    )
    return enrolled, courses


# --- the Django ORM ----------------------------------------------------------------------------


def orm_in_both(alias: str, first: int, second: int) -> tuple:
    from django.db.models import Count

    from config.benchmark.models import Enrollment, Student

    both = Student.objects.using(alias).filter(enrollments__course_id=first).filter(enrollments__course_id=second)
    sizes = (
        Enrollment.objects.using(alias).filter(course_id__in=(first, second)).values("course_id")
        .annotate(n=Count("student_id")).order_by("course_id").values_list("course_id", "n")
    )  # fmt: skip
    return both.count(), list(sizes), list(both.order_by("id").values_list("id", "name")[:PAGE])


def orm_courses_of(alias: str, instructor: int) -> tuple:
    """One query: the instructor with its courses annotated on as an array (``ArraySubquery``)."""
    from django.contrib.postgres.expressions import ArraySubquery
    from django.db.models import OuterRef
    from django.db.models.functions import JSONObject

    from config.benchmark.models import Course as CourseRow
    from config.benchmark.models import Instructor

    courses = (
        CourseRow.objects.using(alias).filter(teaching__instructor_id=OuterRef("pk")).order_by("id")
        .values(row=JSONObject(id="id", code="code", title="title"))
    )  # fmt: skip
    name, rows = (
        Instructor.objects.using(alias).filter(pk=instructor)
        .annotate(courses=ArraySubquery(courses)).values_list("name", "courses").get()
    )  # fmt: skip
    return name, [(row["id"], row["code"], row["title"]) for row in rows]


def orm_course_page(alias: str, course: int) -> tuple:
    """One query: the course with its head count, its instructors and its roster's first page annotated on
    (``Count`` in a ``Subquery``, ``ArraySubquery`` of ``JSONObject``)."""
    from django.contrib.postgres.expressions import ArraySubquery
    from django.db.models import Count, OuterRef, Subquery
    from django.db.models.functions import JSONObject

    from config.benchmark.models import Course as CourseRow
    from config.benchmark.models import Enrollment, Instructor, Student

    enrolled = Enrollment.objects.using(alias).filter(course_id=OuterRef("pk")).order_by().values("course_id")
    instructors = Instructor.objects.using(alias).filter(teaching__course_id=OuterRef("pk")).order_by("id")
    page = Student.objects.using(alias).filter(enrollments__course_id=OuterRef("pk")).order_by("id")
    code, title, capacity, count, teachers, roster = (
        CourseRow.objects.using(alias).filter(pk=course)
        .annotate(
            n=Subquery(enrolled.annotate(n=Count("*")).values("n")),
            teachers=ArraySubquery(instructors.values(row=JSONObject(id="id", name="name"))),
            roster=ArraySubquery(page.values(row=JSONObject(id="id", name="name"))[:PAGE]),
        )
        .values_list("code", "title", "capacity", "n", "teachers", "roster").get()
    )  # fmt: skip
    people = [[(p["id"], p["name"]) for p in side] for side in (teachers, roster)]
    return code, title, capacity, count or 0, *people


def orm_courses_of_student(alias: str, student: int) -> tuple:
    """One query: the student with their courses annotated on as an array (``ArraySubquery``)."""
    from django.contrib.postgres.expressions import ArraySubquery
    from django.db.models import OuterRef
    from django.db.models.functions import JSONObject

    from config.benchmark.models import Course as CourseRow
    from config.benchmark.models import Student

    courses = (
        CourseRow.objects.using(alias).filter(enrollments__student_id=OuterRef("pk")).order_by("id")
        .values(row=JSONObject(id="id", code="code", title="title"))
    )  # fmt: skip
    name, rows = (
        Student.objects.using(alias).filter(pk=student)
        .annotate(courses=ArraySubquery(courses)).values_list("name", "courses").get()
    )  # fmt: skip
    return name, [(row["id"], row["code"], row["title"]) for row in rows]


def orm_course_list(alias: str) -> tuple:
    """The count, then the page with both counts annotated as subqueries (two ``Count`` joins would
    multiply each other)."""
    from django.db.models import Count, OuterRef, Subquery

    from config.benchmark.models import Course as CourseRow
    from config.benchmark.models import Enrollment, Teaching

    def counted(model):
        of_course = model.objects.using(alias).filter(course_id=OuterRef("pk")).order_by().values("course_id")
        return Subquery(of_course.annotate(n=Count("*")).values("n"))

    courses = CourseRow.objects.using(alias)
    page = courses.annotate(students=counted(Enrollment), teachers=counted(Teaching)).order_by("id")
    rows = page.values_list("id", "code", "title", "capacity", "students", "teachers")[:PAGE]
    return courses.count(), [(*row[:4], row[4] or 0, row[5] or 0) for row in rows]


def orm_student_list(alias: str) -> tuple:
    from django.db.models import Count

    from config.benchmark.models import Student

    students = Student.objects.using(alias)
    rows = students.annotate(n=Count("enrollments")).order_by("id").values_list("id", "name", "n")[:PAGE]
    return students.count(), list(rows)


def orm_instructor_list(alias: str) -> tuple:
    from django.db.models import Count

    from config.benchmark.models import Instructor

    people = Instructor.objects.using(alias)
    rows = people.annotate(n=Count("teaching")).order_by("id").values_list("id", "name", "n")[:PAGE]
    return people.count(), list(rows)


def orm_enrol(alias: str, course: int, student: int, limit: int) -> None:
    from django.db import transaction

    from config.benchmark.models import Course as CourseRow
    from config.benchmark.models import Enrollment

    with transaction.atomic(using=alias):
        capacity = CourseRow.objects.using(alias).select_for_update().values_list("capacity", flat=True).get(pk=course)
        enrolments = Enrollment.objects.using(alias)
        full = enrolments.filter(course_id=course).count() >= capacity
        if full or enrolments.filter(student_id=student).count() >= limit:
            raise school.Refused(f"student {student} cannot enrol in course {course}")
        enrolments.create(course_id=course, student_id=student)


def orm_enrolment_of(alias: str, course: int, student: int) -> tuple:
    from config.benchmark.models import Enrollment

    enrolments = Enrollment.objects.using(alias)
    courses = enrolments.filter(student_id=student).order_by("course_id").values_list("course_id", flat=True)
    return enrolments.filter(course_id=course).count(), list(courses)
