"""Every key name of the school app, and its registration in the keyspace.

Ids are ints (checked here, so no caller can slip text into a key); the set
algebra key takes an operation from a fixed list and ids only.
"""

from config.keyspace import register, register_app

APP = "school"
PREFIX = "school:"
ENTITIES = ("course", "instructor", "student")
PEOPLE = ("instructor", "student")
ALGEBRA_OPS = ("inter", "union", "diff")

register_app(APP, PREFIX)


def _id(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"not an id: {value!r}")
    return value


def _entity(entity: str) -> str:
    if entity not in ENTITIES:
        raise ValueError(f"unknown entity {entity!r}")
    return entity


def ids(entity: str) -> str:
    return f"school:ids:{_entity(entity)}"


def doc(entity: str, pk: int) -> str:
    return f"school:{_entity(entity)}:{_id(pk)}"


def index(entity: str) -> str:
    """Sorted set of every id of ``entity``, scored by id: enumeration and id order."""
    return f"school:index:{_entity(entity)}s"


def lex(entity: str) -> str:
    """Sorted set, all scores 0, members ``<casefolded label>\\x00<id>``: search and sort by label."""
    return f"school:index:{_entity(entity)}s:lex"


def course_codes() -> str:
    return "school:index:course_codes"


def schemas(entity: str) -> str:
    return f"school:schemas:{_entity(entity)}"


def migration(entity: str) -> str:
    return f"school:migration:{_entity(entity)}"


def course_instructors(course_id: int) -> str:
    return f"school:course:{_id(course_id)}:instructors"


def instructor_courses(instructor_id: int) -> str:
    return f"school:instructor:{_id(instructor_id)}:courses"


def course_students(course_id: int) -> str:
    return f"school:course:{_id(course_id)}:students"


def student_courses(student_id: int) -> str:
    return f"school:student:{_id(student_id)}:courses"


def course_holds(course_id: int) -> str:
    return f"school:course:{_id(course_id)}:holds"


def student_holds(student_id: int) -> str:
    return f"school:student:{_id(student_id)}:holds"


def hold(course_id: int, student_id: int) -> str:
    return f"school:hold:{_id(course_id)}:{_id(student_id)}"


def algebra(op: str, course_ids: list[int]) -> str:
    if op not in ALGEBRA_OPS:
        raise ValueError(f"unknown set operation {op!r}")
    return f"school:algebra:{op}:{','.join(str(_id(c)) for c in course_ids)}"


# --- registrations ---------------------------------------------------------------

_M2M_BOUNDED = "Many-to-many, bounded on both sides (two-way embedding)"
_M2M_UNBOUNDED = "Many-to-many, one side unbounded"
_SCHEMA = "Schema version pattern"
_SCHEMA_WHY = "The schema field says how to read it, so both versions live side by side."

for _entity_name, _fields in (
    ("course", "code, title, description, capacity, schema"),
    ("instructor", "name, contact, emails (JSON list), schema 2; name, email at schema 1"),
    ("student", "name, contact, emails (JSON list), schema 2; name, email at schema 1"),
):
    register(
        APP,
        f"school:{_entity_name}:*",
        "hash",
        _SCHEMA if _entity_name != "course" else "Document as a hash",
        f"One {_entity_name}: {_fields}.",
        why="A hash holds one document's fields; HMGET reads only what a list shows. "
        + ("" if _entity_name == "course" else _SCHEMA_WHY),
        screens=(f"school:{_entity_name}_detail", f"school:{_entity_name}_list", f"school:{_entity_name}_edit"),
        index=f"school:index:{_entity_name}s",
        url=f"/school/{_entity_name}s/{{id}}/",
    )
    register(
        APP,
        f"school:ids:{_entity_name}",
        "string",
        "Enumerable keys (seed 003): id counter",
        f"The last {_entity_name} id handed out (INCR).",
        why="INCR is atomic, so two writers never get the same id, and ids never come from process memory.",
        screens=(f"school:{_entity_name}_add",),
    )
    register(
        APP,
        f"school:index:{_entity_name}s",
        "zset",
        "Enumerable keys (seed 003): id index",
        f"Every {_entity_name} id, scored by id: the list screen pages it with ZRANGE offsets.",
        why="A sorted set enumerates the documents without KEYS or SCAN and pages them by rank.",
        screens=(f"school:{_entity_name}_list",),
    )
    register(
        APP,
        f"school:index:{_entity_name}s:lex",
        "zset",
        "Inverted index (seed 003): lexicographic",
        f"`<label in lower case>\\x00<id>` with score 0 for every {_entity_name}: prefix search and sort by "
        + ("code" if _entity_name == "course" else "name")
        + ".",
        why="With equal scores a sorted set orders by bytes, so ZRANGEBYLEX answers a prefix search "
        "and ZLEXCOUNT its total, in order, in one round trip.",
        screens=(f"school:{_entity_name}_list",),
    )

register(
    APP,
    "school:index:course_codes",
    "hash",
    "Unique index",
    "Course code -> course id: keeps codes unique and resolves codes on the set algebra screen.",
    why="HGET answers 'who has this code' in O(1); it is written in the same transaction as the course.",
    screens=("school:course_add", "school:course_edit", "school:algebra"),
)
register(
    APP,
    "school:course:*:instructors",
    "set",
    _M2M_BOUNDED,
    "Ids of the instructors of one course (at most 5); mirrors school:instructor:*:courses.",
    why="Both sides are bounded, so each side embeds the other's ids; SADD on both sides in one "
    "MULTI/EXEC under WATCH keeps them symmetric and within their bounds.",
    screens=("school:course_detail", "school:instructor_detail"),
    url="/school/courses/{id}/",
)
register(
    APP,
    "school:instructor:*:courses",
    "set",
    _M2M_BOUNDED,
    "Ids of the courses one instructor teaches (at most 10); mirrors school:course:*:instructors.",
    why="The other half of the two-way embedding: either side is read in one SMEMBERS, which is safe "
    "because the set is bounded.",
    screens=("school:instructor_detail", "school:course_detail"),
    url="/school/instructors/{id}/",
)
register(
    APP,
    "school:student:*:courses",
    "set",
    _M2M_UNBOUNDED,
    "Ids of the courses one student takes: the bounded side (at most 8), read whole.",
    why="The e-book embeds the relation on the bounded side only; a student's courses are one SMEMBERS.",
    screens=("school:student_detail", "school:course_detail"),
    url="/school/students/{id}/",
)
register(
    APP,
    "school:course:*:students",
    "set",
    _M2M_UNBOUNDED,
    "Roster of one course: the unbounded side, only a reverse index, paged with SORT … LIMIT, never read whole.",
    why="SISMEMBER answers 'is this student in this course' in O(1), SCARD counts the roster, and the "
    "sets feed SINTER/SUNION/SDIFF on the set algebra screen.",
    screens=("school:course_detail", "school:algebra"),
    url="/school/courses/{id}/",
)
register(
    APP,
    "school:hold:*:*",
    "string",
    "TTL keys (seed 003): seat hold",
    "A seat held for student (second id) in course (first id); expires by itself after 10 minutes.",
    why="The key's TTL frees the seat with no cron: PEXPIREAT gives it the same deadline as its score "
    "in the course's holds index, so a hold stops counting the moment its key vanishes.",
    screens=("school:course_detail", "school:student_detail"),
    url="/school/courses/{id}/",
)
register(
    APP,
    "school:course:*:holds",
    "zset",
    "TTL keys (seed 003): index of live holds",
    "Student ids holding a seat in one course, scored by the hold's expiry (ms): ZCOUNT now..+inf are live.",
    why="Counting live holds needs no KEYS: members whose score is past are dead and ignored, and every "
    "hold write prunes them, so the set never outgrows the course's capacity.",
    screens=("school:course_detail",),
    url="/school/courses/{id}/",
)
register(
    APP,
    "school:student:*:holds",
    "zset",
    "TTL keys (seed 003): index of live holds",
    "Course ids one student holds a seat in, scored by expiry (ms): counts toward the 8-course bound.",
    why="The student's side of the hold, so deleting a student reaches every hold of theirs in one transaction.",
    screens=("school:student_detail",),
    url="/school/students/{id}/",
)
register(
    APP,
    "school:algebra:*:*",
    "set",
    "Set algebra (SINTERSTORE / SUNIONSTORE / SDIFFSTORE)",
    "Students in all / any / the first but none of the other chosen courses; expires within 60 seconds.",
    why="The result is computed inside Redis and stored so it can be paged with SORT … LIMIT without "
    "sending it whole; EXPIRE in the same MULTI makes it a short-lived cache.",
    screens=("school:algebra",),
)
register(
    APP,
    "school:schemas:*",
    "hash",
    _SCHEMA,
    "How many instructors / students are at each schema version (field = version).",
    why="HINCRBY in the same transaction as every write that creates, upgrades or deletes a document, so the "
    "student list shows the migration's progress without scanning.",
    screens=("school:student_list", "school:instructor_list"),
)
register(
    APP,
    "school:migration:*",
    "hash",
    _SCHEMA,
    "Where `migrate_schema` stopped (SCAN cursor, documents upgraded): the next run resumes there.",
    screens=(),
)
