"""The only code of the school app that talks to Redis.

Writes: every write whose keys are known in advance is one Lua script (``lua/``), every key in
KEYS, that checks the bounds and writes the data, its indexes and its event atomically: one round
trip (``relations``, ``entities``). A create draws its id with INCR first; a delete reads its
relations first and its script deletes only if they are unchanged (``deletes``). Only the schema
migration, whose batch is found by SCAN, is a WATCHed transaction (``migration``).

Reads: a list page, a detail page and the set algebra are each one read script (``lua/read_*.lua``,
``lua/algebra.lua``), joining ids with their documents' fields as ``SORT … GET`` does. A search of
any part of a name and the pickers are two pipelines (the ids, then their documents' fields).
"""

from school.store.algebra import AlgebraResult, algebra, course_ids_for_codes
from school.store.bulk import (
    Room,
    bulk_batch,
    queue_enrolment,
    queue_last_id,
    queue_new_documents,
    queue_pairs,
    queue_seed_event,
    transaction,
)
from school.store.checks import relation_members, scan_documents
from school.store.core import (
    HOLDS_SHOWN,
    PICKER_LIMIT,
    Busy,
    EditConflict,
    NotFound,
    Refused,
    StoreError,
    load_scripts,
    now_ms,
)
from school.store.deletes import delete, delete_many
from school.store.detail import CourseDetail, Hold, Pair, PersonDetail, course_detail, is_enrolled, pair, person_detail
from school.store.entities import get, get_for_edit, queue_document, reserve_ids, save
from school.store.listing import (
    PICKERS,
    Candidate,
    Picker,
    Row,
    course_by_code,
    find_with_total,
    labels,
    list_page,
    schema_counts,
)
from school.store.migration import MigrationStep, migrate_step, migration_cursor
from school.store.names import INDEXES, SEARCH_LIMIT, TEXT_FIELD, gram_drift, rebuild_grams, search_ids, searched_text
from school.store.relations import (
    Change,
    Enrolled,
    confirm_hold,
    drop,
    enrol,
    enrol_many,
    hold_seat,
    link_instructor,
    release_hold,
    unlink_instructor,
)

__all__ = [
    "Enrolled", "enrol_many", "course_by_code",
    "Busy", "EditConflict", "NotFound", "Refused", "StoreError",
    "HOLDS_SHOWN", "PICKER_LIMIT", "now_ms", "load_scripts",
    "save", "get", "get_for_edit", "delete", "delete_many",
    "Row", "labels", "list_page", "Candidate", "Picker", "PICKERS", "find_with_total", "schema_counts",
    "Hold", "CourseDetail", "PersonDetail", "Pair", "course_detail", "person_detail", "pair", "is_enrolled",
    "Change", "link_instructor", "unlink_instructor", "enrol", "drop", "hold_seat", "confirm_hold", "release_hold",
    "AlgebraResult", "algebra", "course_ids_for_codes",
    "MigrationStep", "migrate_step", "migration_cursor",
    "INDEXES", "SEARCH_LIMIT", "TEXT_FIELD", "gram_drift", "rebuild_grams", "search_ids", "searched_text",
    "queue_document", "reserve_ids", "queue_enrolment", "queue_seed_event", "transaction",
    "queue_new_documents", "queue_pairs", "queue_last_id", "Room", "bulk_batch",
    "relation_members", "scan_documents",
    ]  # fmt: skip
