"""Every key name of the school app, each declared once on the function that builds it.

Ids are ints (checked here, so no caller can slip text into a key); ``"*"`` stands in for an id
only where a key's glob is declared and where ``SORT … GET`` joins on a pattern.
"""

from config.keys import register_event_stream
from config.keyspace import keyspace, register_app

APP = "school"
EVENTS = register_event_stream(APP)  # the activity stream this app's writes append to
PREFIX = "school:"
ENTITIES = ("course", "instructor", "student")
PEOPLE = ("instructor", "student")
ALGEBRA_OPS = ("inter", "union", "diff")

register_app(APP, PREFIX)
key = keyspace.declarer(APP)

_M2M_BOUNDED = "Many-to-many, bounded on both sides: two-way embedding (8 Data Modeling Patterns in Redis)"
_M2M_UNBOUNDED = "Many-to-many, one side unbounded: embed on the bounded side (8 Data Modeling Patterns in Redis)"
_SCHEMA = "Schema version (8 Data Modeling Patterns in Redis)"
_SCHEMA_WHY = "The schema field says how to read it, so both versions live side by side."
_ENUMERABLE = "Enumerable keys: an id counter and a sorted-set index (Redis key-value design notes)"
_TTL = "Keys with a time to live (Redis key-value design notes)"
_PEOPLE_FIELDS = "name, contact, emails (JSON list), schema 2; name, email at schema 1"


def _id(value) -> int | str:
    if value == "*":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"not an id: {value!r}")
    return value


def _entity(entity: str) -> str:
    if entity not in ENTITIES:
        raise ValueError(f"unknown entity {entity!r}")
    return entity


def per_entity(type: str, modeling: str, serves: str, entities: tuple[str, ...] = ENTITIES, **extra):
    """``key`` for a function whose first parameter is the entity: one glob per entity, its texts'
    ``{entity}``, ``{fields}`` and ``{label}`` filled for each."""

    def declare(build):
        for entity in entities:
            fill = lambda text, entity=entity: text.format(entity=entity, fields=_FIELDS[entity], label=_LABEL[entity])  # noqa: E731
            keyspace.register(
                APP,
                build(entity, *["*"] * (build.__code__.co_argcount - 1)),
                type,
                "Document as a hash" if entity == "course" and modeling == _SCHEMA else fill(modeling),
                fill(serves),
                **{k: tuple(map(fill, v)) if isinstance(v, tuple) else fill(v) for k, v in extra.items()},
            )
        return build

    return declare


_FIELDS = {
    "course": "code, title, description, capacity, schema",
    "instructor": _PEOPLE_FIELDS,
    "student": _PEOPLE_FIELDS,
}
_LABEL = {"course": "code", "instructor": "name", "student": "name"}


@per_entity(
    "string",
    _ENUMERABLE,
    "The last {entity} id handed out (INCR).",
    why="INCR is atomic, so two writers never get the same id, and ids never come from process memory.",
    screens=("school:{entity}_add",),
)
def ids(entity: str) -> str:
    return f"school:{{school}}:ids:{_entity(entity)}"


@per_entity(
    "hash",
    _SCHEMA,
    "One {entity}: {fields}.",
    why="A hash holds one document's fields; HMGET reads only what a list shows. " + _SCHEMA_WHY,
    screens=("school:{entity}_detail", "school:{entity}_list", "school:{entity}_edit"),
    index="school:{{school}}:index:{entity}s",
    url="/school/{entity}s/{{id}}/",
)
def doc(entity: str, pk: int) -> str:
    return f"school:{{school}}:{_entity(entity)}:{_id(pk)}"


@per_entity(
    "zset",
    _ENUMERABLE,
    "Every {entity} id, scored by id: the list screen pages it with ZRANGE offsets.",
    why="A sorted set enumerates the documents without KEYS or SCAN and pages them by rank.",
    screens=("school:{entity}_list",),
)
def index(entity: str) -> str:
    """Sorted set of every id of ``entity``, scored by id: enumeration and id order."""
    return f"school:{{school}}:index:{_entity(entity)}s"


@per_entity(
    "zset",
    "Lexicographic index: sorted set of equal scores (Redis key-value design notes)",
    "`<label in lower case>\\x00<id>` with score 0 for every {entity}: prefix search and sort by {label}.",
    why="With equal scores a sorted set orders by bytes, so ZRANGEBYLEX answers a prefix search "
    "and ZLEXCOUNT its total, in order, in one round trip.",
    screens=("school:{entity}_list",),
)
def lex(entity: str) -> str:
    """Sorted set, all scores 0, members ``<casefolded label>\\x00<id>``: search and sort by label."""
    return f"school:{{school}}:index:{_entity(entity)}s:lex"


@per_entity(
    "hash",
    _SCHEMA,
    "How many {entity}s are at each schema version (field = version).",
    entities=PEOPLE,
    why="HINCRBY in the same script as every write that creates, upgrades or deletes a document, so the "
    "list shows the migration's progress without scanning.",
    screens=("school:{entity}_list",),
)
def schemas(entity: str) -> str:
    return f"school:{{school}}:schemas:{_entity(entity)}"


@per_entity(
    "hash",
    _SCHEMA,
    "Where `migrate_schema` stopped (SCAN cursor, documents upgraded): the next run resumes there.",
    entities=PEOPLE,
)
def migration(entity: str) -> str:
    return f"school:{{school}}:migration:{_entity(entity)}"


def doc_field(entity: str, field: str) -> str:
    """The ``SORT … GET`` pattern of one field of every document of ``entity``."""
    return f"{doc(entity, '*')}->{field}"


@key(
    "hash",
    "Unique index",
    "Course code -> course id: keeps codes unique and resolves codes on the set algebra screen.",
    why="HGET answers 'who has this code' in O(1); it is written in the same script as the course.",
    screens=("school:course_add", "school:course_edit", "school:algebra"),
)
def course_codes() -> str:
    return "school:{school}:index:course_codes"


@key(
    "set",
    _M2M_BOUNDED,
    "Ids of the instructors of one course (at most 5); mirrors school:instructor:*:courses.",
    why="Both sides are bounded, so each side embeds the other's ids; one script checks both bounds and "
    "SADDs both sides, so they stay symmetric and within their bounds.",
    screens=("school:course_detail", "school:instructor_detail"),
    url="/school/courses/{id}/",
)
def course_instructors(course_id: int) -> str:
    return f"school:{{school}}:course:{_id(course_id)}:instructors"


@key(
    "set",
    _M2M_BOUNDED,
    "Ids of the courses one instructor teaches (at most 10); mirrors school:course:*:instructors.",
    why="The other half of the two-way embedding: either side is read whole in one command, which is safe "
    "because the set is bounded.",
    screens=("school:instructor_detail", "school:course_detail"),
    url="/school/instructors/{id}/",
)
def instructor_courses(instructor_id: int) -> str:
    return f"school:{{school}}:instructor:{_id(instructor_id)}:courses"


@key(
    "zset",
    _M2M_UNBOUNDED,
    "Roster of one course: the unbounded side, student ids scored by their id, an index in id order: a page "
    "is a range of ranks, never the whole roster.",
    why="Scored by id, the roster is kept sorted as it is written, so a page is a range of ranks (log N plus "
    "the page) where a set would be loaded and sorted whole on every view; ZSCORE answers 'is this student in "
    "this course' in O(1), ZCARD counts the roster, and the rosters feed ZINTERSTORE/ZUNIONSTORE/ZDIFFSTORE "
    "on the set algebra screen.",
    screens=("school:course_detail", "school:algebra"),
    url="/school/courses/{id}/",
)
def course_students(course_id: int) -> str:
    return f"school:{{school}}:course:{_id(course_id)}:students"


@key(
    "set",
    _M2M_UNBOUNDED,
    "Ids of the courses one student takes: the bounded side (at most 8), read whole.",
    why="The e-book embeds the relation on the bounded side only; a student's courses are one SORT … GET.",
    screens=("school:student_detail", "school:course_detail"),
    url="/school/students/{id}/",
)
def student_courses(student_id: int) -> str:
    return f"school:{{school}}:student:{_id(student_id)}:courses"


@key(
    "zset",
    f"{_TTL}: index of live holds",
    "Student ids holding a seat in one course, scored by the hold's expiry (ms): ZCOUNT now..+inf are live.",
    scores="time",
    why="Counting live holds needs no KEYS: members whose score is past are dead and ignored, and every "
    "seat write prunes them, so the set never outgrows the course's capacity.",
    screens=("school:course_detail",),
    url="/school/courses/{id}/",
)
def course_holds(course_id: int) -> str:
    return f"school:{{school}}:course:{_id(course_id)}:holds"


@key(
    "zset",
    f"{_TTL}: index of live holds",
    "Course ids one student holds a seat in, scored by expiry (ms): counts toward the 8-course bound.",
    why="The student's side of the hold, so deleting a student reaches every hold of theirs in one script.",
    screens=("school:student_detail",),
    url="/school/students/{id}/",
)
def student_holds(student_id: int) -> str:
    return f"school:{{school}}:student:{_id(student_id)}:holds"


@key(
    "string",
    f"{_TTL}: seat hold",
    "A seat held for student (second id) in course (first id); expires by itself after 10 minutes.",
    why="The key's TTL frees the seat with no cron: PXAT gives it the same deadline as its score "
    "in the course's holds index, so a hold stops counting the moment its key vanishes.",
    screens=("school:course_detail", "school:student_detail"),
    url="/school/courses/{id}/",
)
def hold(course_id: int, student_id: int) -> str:
    return f"school:{{school}}:hold:{_id(course_id)}:{_id(student_id)}"


@key(
    "zset",
    "Set algebra (ZINTERSTORE / ZUNIONSTORE / ZDIFFSTORE)",
    "Students in all / any / the first but none of the other chosen courses, scored by id; expires within 60 seconds.",
    why="The result is computed inside Redis from the rosters and stored, each student scored by id as in a "
    "roster (AGGREGATE MIN), so a page is a range of ranks without sending the result whole; EXPIRE in the "
    "same script makes it a short-lived cache.",
    screens=("school:algebra",),
)
def algebra(op: str, course_ids: list[int]) -> str:
    if op == "*":
        return "school:{school}:algebra:*:*"
    if op not in ALGEBRA_OPS:
        raise ValueError(f"unknown set operation {op!r}")
    return f"school:{{school}}:algebra:{op}:{','.join(str(_id(c)) for c in course_ids)}"


@key(
    "zset",
    "Set algebra being built (expires)",
    "A large set algebra's result while bounded steps fill it; renamed to the result by the page's script, "
    "else expires within 60 seconds.",
    why="ZINTERSTORE / ZUNIONSTORE / ZDIFFSTORE of large rosters is one command that holds the server for as "
    "long as the rosters are large, so past a bound each step combines one slice of ids; a random name "
    "keeps two requests from filling one key, and RENAME shows the whole result at once.",
    screens=("school:algebra",),
)
def algebra_built(token: str) -> str:
    return f"school:{{school}}:algebra-built:{token}"


@per_entity(
    "set",
    "Inverted index: trigrams (n-grams) of a name",
    "The ids of the {entity}s whose name (a course's title) holds one three-character piece.",
    why="A search for any part of a name or title is SINTER of its pieces' sets, which Redis answers by "
    "walking the smallest, so its cost follows the rarest piece, not the number of documents. Written in "
    "the document's own save and delete scripts, from the text the script checks is still stored.",
    screens=("school:{entity}_list", "school:course_detail"),
)
def ngram(entity: str, gram: str) -> str:
    """One piece's set of ids; ``gram`` is three folded letters or digits (``ngrams.grams``), never raw input."""
    return f"school:{{school}}:ngram:{_entity(entity)}:{gram}"


@key(
    "set",
    "Temporary result (expires)",
    "A name search's intersection of trigram sets; unlinked by the same transaction.",
    why="SINTERSTORE needs somewhere to put its result; a random name means no two searches share one.",
    screens=("school:course_list", "school:instructor_list", "school:student_list", "school:course_detail"),
)
def search_temp(token: str) -> str:
    return f"school:{{school}}:tmp:{token}"


# (relation, entity) -> (its side's set, the other entity, the other side's set)
SIDES = {
    ("teaching", "course"): (course_instructors, "instructor", instructor_courses),
    ("teaching", "instructor"): (instructor_courses, "course", course_instructors),
    ("enrolment", "student"): (student_courses, "course", course_students),
    ("enrolment", "course"): (course_students, "student", student_courses),
}


def kind(side) -> str:
    """The Redis type of a relation side's keys, as declared on its function: "set", or "zset" (a roster)."""
    return side.entry.type
