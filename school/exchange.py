"""The school's export format: courses, instructors, students, and the two many-to-many relations
(teaching: instructor and course; enrolments: student and course), one file each.

People are exported in the current schema, whatever version they are stored at. Left out and
rebuilt by the import: the indexes, the other side of each relation, the per-schema counts; seat
holds are not exported (they expire within minutes). Documents are checked with the app's forms.

The import writes through the store's bulk paths, a batch one MULTI/EXEC; a batch of pairs is first
checked against the bounds and capacities (``store.Room``), so what the relation scripts refuse one
by one is refused here too. Each file writes one summary event ("1,000 students").
"""

from __future__ import annotations

from config.exchange import store as exchange
from config.exchange.spec import AppExchange, Entity, Record
from config.store import batched
from school import forms, keys, store
from school.documents import Course, Person

BATCH = 2_000  # documents or pairs per MULTI/EXEC
_COURSE_FIELDS = ("code", "title", "description", "capacity")
_PERSON_FIELDS = ("name", "contact", "emails")


def _doc(entity: str):
    return lambda pk: keys.doc(entity, pk)


def _export(entity: str):
    make, names = (Course, _COURSE_FIELDS) if entity == "course" else (Person, _PERSON_FIELDS)

    def export():
        for pk, row in exchange.documents(exchange.ids(_doc(entity)), {"doc": (_doc(entity), "hash")}):
            document = make.from_hash(pk, row["doc"])
            yield {"id": pk, **{name: getattr(document, name) for name in names}}

    return export


def _clean_course(record: Record) -> dict:
    pk = record.id()
    form = record.form(forms.CourseForm, _COURSE_FIELDS)
    if form is None:
        return {"id": pk}
    course = form.document(pk or 0)
    for name in _COURSE_FIELDS:
        if str(getattr(course, name)) != str(record.doc.get(name, "")):
            record.report.rewrote(f"courses.{name}", record.doc.get(name), getattr(course, name))
    first = record.state.setdefault("codes", {}).setdefault(course.code, record.where)
    if first != record.where:
        record.fail("code", f"course code {course.code} is already used (first at {first})")
    return {"id": pk, **{name: getattr(course, name) for name in _COURSE_FIELDS}}


def _clean_person(record: Record) -> dict:
    pk = record.id()
    emails = record.texts("emails", max_items=11) or []
    contact = record.doc.get("contact")
    others = "\n".join(e for e in emails if e != contact)
    form = record.form(forms.PersonForm, _PERSON_FIELDS, emails=others)
    if form is None:
        return {"id": pk}
    person = form.document(pk or 0)
    return {"id": pk, "name": person.name, "contact": person.contact, "emails": person.emails}


def _restore_documents(entity: str):
    make = Course if entity == "course" else Person

    def restore(docs, writer) -> None:
        """Into an empty app, in ascending id order: a batch's documents, indexes and id counter a MULTI/EXEC."""
        count = 0
        for batch in batched(docs, BATCH):
            documents = {doc["id"]: make(**doc).to_hash() for doc in batch}
            tx = store.transaction()
            store.queue_new_documents(tx, entity, documents)
            store.queue_last_id(tx, entity, max(documents))
            tx.execute()
            count += len(documents)
        _summary(entity, count, writer)

    return restore


def _documents(entity: str) -> Entity:
    clean = _clean_course if entity == "course" else _clean_person
    return Entity(f"{entity}s", _export(entity), clean, _restore_documents(entity), key=_doc(entity))


def _summary(entity: str, count: int, writer) -> None:
    """One activity event for a whole file."""
    if count:
        tx = store.transaction()
        store.queue_seed_event(tx, entity, count, actor=writer.actor)
        tx.execute()


def _relation(entity: str, members_key, pairs: str):
    """The (entity, course) pairs of a relation, read from each ``entity``'s own bounded set."""

    def export():
        reads = {"courses": (members_key, "set")}
        for pk, row in exchange.documents(exchange.ids(_doc(entity)), {"doc": (_doc(entity), "hash"), **reads}):
            for course in sorted(int(c) for c in row["courses"]):
                yield {entity: pk, "course": course}

    def clean(record: Record) -> dict:
        return {entity: record.ref(entity, f"{entity}s"), "course": record.ref("course", "courses")}

    relation = "teaching" if entity == "instructor" else "enrolment"

    def restore(docs, writer) -> None:
        """Each batch of pairs checked against the bounds, then both sides written in one MULTI/EXEC."""
        count, room = 0, store.Room(relation)
        for batch in batched(docs, BATCH):
            pairs = [(doc["course"], doc[entity]) for doc in batch]
            room.check(pairs)
            tx = store.transaction()
            store.queue_pairs(tx, relation, pairs)
            tx.execute()
            count += len(pairs)
        _summary("enrolment" if entity == "student" else "assignment", count, writer)

    return Entity(pairs, export, clean, restore, order=(entity, "course"))


EXCHANGE = AppExchange(
    app="school",
    label="The school",
    entities=(
        *map(_documents, keys.ENTITIES),
        _relation("instructor", keys.instructor_courses, "teaching"),
        _relation("student", keys.student_courses, "enrolments"),
    ),
    counters={entity: keys.ids(entity) for entity in keys.ENTITIES},
    notes="Seat holds are not exported: they expire by themselves within minutes.",
)
