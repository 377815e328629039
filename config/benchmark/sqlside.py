"""The SQL side: the e-book's normalized schema in SQLite, loaded with the same records,
asked the same questions in the SQL a good DBA would write.

Schema: products, product_details (one-to-one), product_images and
product_reviews (one-to-many), one table per product type for its own fields
(class-table inheritance, the normalized answer to polymorphism); posts and
revisions; courses, instructors, students and the join tables
courses_instructors and enrollments (indexed both ways); locations and
employees (an adjacency list: ``manager_id``); raw temperature readings.
Indexes: every foreign key used in a WHERE, reviews by (product,
published_at) and (product, rating) so the aggregate is read from the index
alone, products by (type, created_at), readings clustered by (location, ts).
Nothing derived is stored: the relational way computes aggregates, newest-N
and walks at read time. WAL with ``synchronous=NORMAL`` matches Redis's
``appendfsync everysec`` durability.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from catalog import types
from config.benchmark.dataset import Dataset
from config.benchmark.redisside import HISTORY_PAGE, PAGE, Load, SchoolData

SCHEMA = """
CREATE TABLE products (
    id INTEGER PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL, brand TEXT NOT NULL,
    sku TEXT NOT NULL UNIQUE, model TEXT, price_cents INTEGER, created_at REAL NOT NULL);
CREATE INDEX products_type_created ON products (type, created_at);
CREATE TABLE product_details (
    product_id INTEGER PRIMARY KEY REFERENCES products (id), description TEXT, manufacturer TEXT,
    dimensions TEXT, weight TEXT, image TEXT);
CREATE TABLE product_images (
    product_id INTEGER NOT NULL REFERENCES products (id), position INTEGER NOT NULL, url TEXT NOT NULL,
    PRIMARY KEY (product_id, position)) WITHOUT ROWID;
CREATE TABLE product_reviews (
    id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products (id), author TEXT NOT NULL,
    rating INTEGER NOT NULL, comment TEXT NOT NULL, published_at REAL NOT NULL);
CREATE INDEX product_reviews_newest ON product_reviews (product_id, published_at);
CREATE INDEX product_reviews_rating ON product_reviews (product_id, rating);
CREATE TABLE courses (
    id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, title TEXT NOT NULL, capacity INTEGER NOT NULL);
CREATE TABLE instructors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);
CREATE TABLE students (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);
CREATE TABLE courses_instructors (
    course_id INTEGER NOT NULL REFERENCES courses (id), instructor_id INTEGER NOT NULL REFERENCES instructors (id),
    PRIMARY KEY (course_id, instructor_id)) WITHOUT ROWID;
CREATE INDEX courses_instructors_instructor ON courses_instructors (instructor_id, course_id);
CREATE TABLE enrollments (
    course_id INTEGER NOT NULL REFERENCES courses (id), student_id INTEGER NOT NULL REFERENCES students (id),
    PRIMARY KEY (course_id, student_id)) WITHOUT ROWID;
CREATE INDEX enrollments_student ON enrollments (student_id, course_id);
CREATE TABLE posts (
    id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, author TEXT NOT NULL,
    status TEXT NOT NULL, last_saved_by TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL,
    version INTEGER NOT NULL, comment TEXT NOT NULL);
CREATE TABLE revisions (
    post_id INTEGER NOT NULL REFERENCES posts (id), version INTEGER NOT NULL, title TEXT NOT NULL,
    body TEXT NOT NULL, author TEXT NOT NULL, status TEXT NOT NULL, saved_by TEXT NOT NULL,
    saved_at REAL NOT NULL, comment TEXT NOT NULL, PRIMARY KEY (post_id, version)) WITHOUT ROWID;
CREATE TABLE locations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE employees (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, title TEXT NOT NULL,
    manager_id INTEGER REFERENCES employees (id), location_id INTEGER REFERENCES locations (id),
    full_time INTEGER NOT NULL);
CREATE INDEX employees_manager ON employees (manager_id);
CREATE INDEX employees_location ON employees (location_id);
CREATE TABLE temperature_readings (
    location_id INTEGER NOT NULL REFERENCES locations (id), ts INTEGER NOT NULL, temperature REAL NOT NULL,
    PRIMARY KEY (location_id, ts)) WITHOUT ROWID;
"""


def _type_table(slug: str) -> str:
    return f"product_{slug}"  # slugs come from the type registry, never from input


def _type_schema() -> str:
    return "".join(
        f"CREATE TABLE {_type_table(t.slug)} (product_id INTEGER PRIMARY KEY REFERENCES products (id), "
        + ", ".join(f"{f.name} TEXT" for f in t.fields)
        + ");\n"
        for t in types.TYPES.values()
    )


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)  # autocommit; writes open their own BEGIN
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.executescript(SCHEMA + _type_schema())
    return conn


def _timed(conn: sqlite3.Connection, app: str, records: int, write) -> Load:
    started = time.perf_counter()
    conn.execute("BEGIN")
    write()
    conn.execute("COMMIT")
    return Load(app, records, time.perf_counter() - started, 0)


def load(conn: sqlite3.Connection, data: Dataset, first_employee: int, location: int, school: SchoolData) -> list[Load]:
    """The same records, with the ids the Redis side gave them, one transaction per app."""

    def products():
        conn.executemany(
            "INSERT INTO products VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            ((p.id, p.type, p.name, p.brand, p.sku, p.model, _cents(p.price), p.created_at) for p, _ in data.products),
        )
        conn.executemany(
            "INSERT INTO product_details VALUES (?, ?, ?, ?, ?, ?)",
            ((p.id, p.description, p.manufacturer, p.dimensions, p.weight, p.image) for p, _ in data.products),
        )
        conn.executemany(
            "INSERT INTO product_images VALUES (?, ?, ?)",
            ((p.id, i, url) for p, _ in data.products for i, url in enumerate(p.images)),
        )
        reviews = ((p.id, r) for p, rs in data.products for r in rs)
        conn.executemany(
            "INSERT INTO product_reviews VALUES (?, ?, ?, ?, ?, ?)",
            ((n, pid, r.author, r.rating, r.comment, r.at) for n, (pid, r) in enumerate(reviews, start=1)),
        )
        for kind in types.TYPES.values():
            names = kind.field_names
            conn.executemany(
                f"INSERT INTO {_type_table(kind.slug)} VALUES (?{', ?' * len(names)})",
                ((p.id, *(p.attrs.get(n) for n in names)) for p, _ in data.products if p.type == kind.slug),
            )

    def posts():
        conn.executemany(
            "INSERT INTO posts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    p.id,
                    p.title,
                    p.body,
                    p.author,
                    p.status,
                    p.last_saved_by,
                    p.created_at,
                    p.updated_at,
                    p.version,
                    p.comment,
                )
                for p in (versions[-1] for versions in data.posts)
            ),
        )
        conn.executemany(
            "INSERT INTO revisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (p.id, p.version, p.title, p.body, p.author, p.status, p.last_saved_by, p.updated_at, p.comment)
                for versions in data.posts
                for p in versions[:-1]
            ),
        )

    ids = {folded: first_employee + i for i, folded in enumerate(data.org.people)}
    places = {folded: location + i for i, folded in enumerate(data.org.locations)}

    def org():
        conn.executemany("INSERT INTO locations VALUES (?, ?)", ((places[f], n) for f, n in data.org.locations.items()))
        conn.executemany(
            "INSERT INTO employees VALUES (?, ?, ?, ?, ?, ?)",
            (
                (ids[f], p.name, p.title, ids.get(p.manager), places.get(p.location), int(p.full_time))
                for f, p in data.org.people.items()
            ),
        )

    def readings():
        for chunk in data.readings(location):
            conn.executemany(
                "INSERT INTO temperature_readings VALUES (?, ?, ?)", ((location, ts, v) for ts, v in chunk)
            )

    def school_tables():
        conn.executemany("INSERT INTO courses VALUES (?, ?, ?, ?)", school.courses)
        conn.executemany("INSERT INTO instructors VALUES (?, ?, ?)", school.instructors)
        conn.executemany("INSERT INTO students VALUES (?, ?, ?)", school.students)
        conn.executemany("INSERT INTO courses_instructors VALUES (?, ?)", school.teaching)
        conn.executemany("INSERT INTO enrollments VALUES (?, ?)", school.enrolments)

    school_records = sum(
        map(len, (school.courses, school.instructors, school.students, school.teaching, school.enrolments))
    )
    loads = [
        _timed(conn, "catalog", len(data.products) + data.reviews, products),
        _timed(conn, "cms", len(data.posts) + data.revisions, posts),
        _timed(conn, "orgchart", len(data.org.people), org),
        _timed(conn, "sensor", data.samples, readings),
        _timed(conn, "school", school_records, school_tables),
    ]
    conn.execute("ANALYZE")
    return loads


def _cents(price) -> int | None:
    return None if price is None else int(price * 100)


# --- the questions ----------------------------------------------------------------------------


def product_list_by_rating(conn) -> tuple:
    """1. GROUP BY with AVG over every review, then the page (ties in the order Redis keeps them)."""
    (total,) = conn.execute("SELECT COUNT(*) FROM products").fetchone()
    rows = conn.execute(
        """SELECT p.id, p.name, p.brand, p.price_cents, COUNT(r.rating), AVG(r.rating)
           FROM products p LEFT JOIN product_reviews r ON r.product_id = p.id
           GROUP BY p.id
           ORDER BY COALESCE(AVG(r.rating), 0) DESC, CAST(p.id AS TEXT) DESC
           LIMIT ?""",
        (PAGE,),
    ).fetchall()
    return total, rows


def product_detail(conn, product_id: int) -> tuple:
    """2. The product JOIN its details, its images, the aggregate and the 3 newest reviews."""
    name, brand, cents, description, manufacturer = conn.execute(
        """SELECT p.name, p.brand, p.price_cents, d.description, d.manufacturer
           FROM products p JOIN product_details d ON d.product_id = p.id WHERE p.id = ?""",
        (product_id,),
    ).fetchone()
    images = [
        url
        for (url,) in conn.execute(
            "SELECT url FROM product_images WHERE product_id = ? ORDER BY position", (product_id,)
        )
    ]
    count, avg = conn.execute(
        "SELECT COUNT(*), AVG(rating) FROM product_reviews WHERE product_id = ?", (product_id,)
    ).fetchone()
    recent = conn.execute(
        """SELECT id, author, rating, comment, published_at FROM product_reviews WHERE product_id = ?
           ORDER BY published_at DESC, CAST(id AS TEXT) DESC LIMIT 3""",
        (product_id,),
    ).fetchall()
    return name, brand, cents, description, manufacturer, images, count, avg, recent


def products_of_type(conn, slug: str) -> tuple:
    """3. The newest products of one type JOIN that type's own table."""
    kind = types.get(slug)
    (total,) = conn.execute("SELECT COUNT(*) FROM products WHERE type = ?", (slug,)).fetchone()
    columns = ", ".join(f"t.{name}" for name in kind.field_names)
    rows = conn.execute(
        f"""SELECT p.id, p.name, {columns} FROM products p JOIN {_type_table(slug)} t ON t.product_id = p.id
            WHERE p.type = ? ORDER BY p.created_at DESC LIMIT ?""",
        (slug, PAGE),
    ).fetchall()
    return total, [(row[0], row[1], ["" if v is None else v for v in row[2:]]) for row in rows]


def post_history(conn, post_id: int) -> tuple:
    """6. The post, its revision count and one page of revisions, newest first."""
    title, version = conn.execute("SELECT title, version FROM posts WHERE id = ?", (post_id,)).fetchone()
    (total,) = conn.execute("SELECT COUNT(*) FROM revisions WHERE post_id = ?", (post_id,)).fetchone()
    rows = conn.execute(
        """SELECT version, saved_by, comment, saved_at, title FROM revisions WHERE post_id = ?
           ORDER BY version DESC LIMIT ?""",
        (post_id, HISTORY_PAGE),
    ).fetchall()
    return title, version, total, rows


_WALK = """
WITH RECURSIVE below (id, depth) AS (
    SELECT id, 1 FROM employees WHERE manager_id = :manager
    UNION ALL
    SELECT e.id, below.depth + 1 FROM employees e JOIN below ON e.manager_id = below.id
    WHERE below.depth < :depth
)
SELECT depth, id FROM below ORDER BY depth, id
"""


def _levels(conn, manager: int, depth: int) -> tuple:
    levels: dict[int, list[int]] = {}
    for level, pk in conn.execute(_WALK, {"manager": manager, "depth": depth}):
        levels.setdefault(level, []).append(pk)
    return tuple(tuple(levels[d]) for d in sorted(levels))


def reports_at_depth(conn, manager: int, depth: int) -> tuple:
    """7a. A recursive CTE bounded at ``depth``."""
    return _levels(conn, manager, depth)


def subtree(conn, manager: int) -> tuple:
    """7b. The same recursive CTE, unbounded."""
    return _levels(conn, manager, 10**6)


def monthly_temperature(conn, location: int) -> tuple:
    """8. GROUP BY month over the raw rows of the 12 months ending at the newest reading."""
    (last,) = conn.execute("SELECT MAX(ts) FROM temperature_readings WHERE location_id = ?", (location,)).fetchone()
    first = datetime.fromtimestamp(last, UTC).replace(day=1, hour=0, minute=0, second=0)
    for _ in range(11):
        first = (first - timedelta(days=1)).replace(day=1)
    rows = conn.execute(
        """SELECT strftime('%Y%m', ts, 'unixepoch'), COUNT(*), AVG(temperature) FROM temperature_readings
           WHERE location_id = ? AND ts >= ? GROUP BY 1 ORDER BY 1""",
        (location, int(first.timestamp())),
    ).fetchall()
    return tuple(rows)


def students_in_both(conn, first: int, second: int) -> tuple:
    """4. A self-join of enrollments on the student, its count, one page by id, and each roster's size."""
    both = """FROM enrollments a JOIN enrollments b ON b.course_id = :second AND b.student_id = a.student_id
              WHERE a.course_id = :first"""
    ids = {"first": first, "second": second}
    (total,) = conn.execute(f"SELECT COUNT(*) {both}", ids).fetchone()
    sizes = conn.execute(
        "SELECT course_id, COUNT(*) FROM enrollments WHERE course_id IN (?, ?) GROUP BY course_id ORDER BY course_id",
        (first, second),
    ).fetchall()
    page = conn.execute(
        f"SELECT s.id, s.name {both.replace('WHERE', 'JOIN students s ON s.id = a.student_id WHERE')} "
        "ORDER BY a.student_id LIMIT :page",
        {**ids, "page": PAGE},
    ).fetchall()
    return total, sizes, page


def courses_of_instructor(conn, instructor: int) -> tuple:
    """5. The instructor, and its courses through the join table."""
    (name,) = conn.execute("SELECT name FROM instructors WHERE id = ?", (instructor,)).fetchone()
    rows = conn.execute(
        """SELECT c.id, c.code, c.title FROM courses_instructors ci JOIN courses c ON c.id = ci.course_id
           WHERE ci.instructor_id = ? ORDER BY c.id""",
        (instructor,),
    ).fetchall()
    return name, rows


class Refused(Exception):
    """An enrolment the bounds do not allow."""


def enrol(conn, course: int, student: int, limit: int) -> None:
    """10. Check the course's capacity and the student's bound, then INSERT, in one IMMEDIATE transaction
    (it takes the write lock before reading, so two enrolments cannot both take the last seat)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        (capacity,) = conn.execute("SELECT capacity FROM courses WHERE id = ?", (course,)).fetchone()
        (enrolled,) = conn.execute("SELECT COUNT(*) FROM enrollments WHERE course_id = ?", (course,)).fetchone()
        (taking,) = conn.execute("SELECT COUNT(*) FROM enrollments WHERE student_id = ?", (student,)).fetchone()
        if enrolled >= capacity or taking >= limit:
            raise Refused(f"student {student} cannot enrol in course {course}")
        conn.execute("INSERT INTO enrollments VALUES (?, ?)", (course, student))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def enrolment_of(conn, course: int, student: int) -> tuple:
    (enrolled,) = conn.execute("SELECT COUNT(*) FROM enrollments WHERE course_id = ?", (course,)).fetchone()
    courses = [
        c
        for (c,) in conn.execute(
            "SELECT course_id FROM enrollments WHERE student_id = ? ORDER BY course_id", (student,)
        )
    ]
    return enrolled, courses


def add_review(conn, product_id: int, n: int, at: float) -> int:
    """9. One INSERT in its own transaction: the normalized schema keeps nothing derived."""
    conn.execute("BEGIN")
    cursor = conn.execute(
        "INSERT INTO product_reviews (product_id, author, rating, comment, published_at) VALUES (?, ?, ?, ?, ?)",
        (product_id, f"bench{n % 7}", 1 + n % 5, f"Benchmark review {n}.", at),
    )
    conn.execute("COMMIT")
    return cursor.lastrowid
