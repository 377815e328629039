"""The school's relational twin in the benchmark: courses, students, instructors and the join tables
``enrollments`` and ``courses_instructors``, indexed both ways (nothing derived), the DBA's precomputation
beside them, and each question answered three ways: hand-written SQL, the DBA's one statement, and the
Django ORM. Their SQL is one source for the benchmark and the screens' twins.
"""

from __future__ import annotations

from config.benchmark.sql import counts_kept
from config.store import Refused

PAGE = 25

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

CREATE FUNCTION enrol(course BIGINT, student BIGINT, most INTEGER) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM courses WHERE id = course AND enrolled < capacity FOR UPDATE;
    IF NOT FOUND THEN RETURN FALSE; END IF;
    PERFORM 1 FROM students WHERE id = student AND taking < most FOR UPDATE;
    IF NOT FOUND THEN RETURN FALSE; END IF;
    INSERT INTO enrollments VALUES (course, student);
    RETURN TRUE;
END $$;
""" + counts_kept("school_counts", "courses", "students", "instructors")


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
            raise Refused(f"student {student} cannot enrol in course {course}")
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
        raise Refused(f"student {student} cannot enrol in course {course}")


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


def _orm_courses_of_person(alias: str, person: str, pk: int) -> tuple:
    """One query: the instructor or student with its courses annotated on as an array (``ArraySubquery``),
    the courses found through ``teaching`` or ``enrollments``."""
    from django.contrib.postgres.expressions import ArraySubquery
    from django.db.models import OuterRef
    from django.db.models.functions import JSONObject

    from config.benchmark.models import Course as CourseRow
    from config.benchmark.models import Instructor, Student

    model, through = {"instructor": (Instructor, "teaching"), "student": (Student, "enrollments")}[person]
    courses = (
        CourseRow.objects.using(alias).filter(**{f"{through}__{person}_id": OuterRef("pk")}).order_by("id")
        .values(row=JSONObject(id="id", code="code", title="title"))
    )  # fmt: skip
    name, rows = (
        model.objects.using(alias).filter(pk=pk)
        .annotate(courses=ArraySubquery(courses)).values_list("name", "courses").get()
    )  # fmt: skip
    return name, [(row["id"], row["code"], row["title"]) for row in rows]


def orm_courses_of(alias: str, instructor: int) -> tuple:
    return _orm_courses_of_person(alias, "instructor", instructor)


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
    return _orm_courses_of_person(alias, "student", student)


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
            raise Refused(f"student {student} cannot enrol in course {course}")
        enrolments.create(course_id=course, student_id=student)


def orm_enrolment_of(alias: str, course: int, student: int) -> tuple:
    from config.benchmark.models import Enrollment

    enrolments = Enrollment.objects.using(alias)
    courses = enrolments.filter(student_id=student).order_by("course_id").values_list("course_id", flat=True)
    return enrolments.filter(course_id=course).count(), list(courses)
