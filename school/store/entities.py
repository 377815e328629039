"""Courses, instructors and students as documents: read one, and create or update one in one script."""

from __future__ import annotations

from config.activity import Actor
from config.redis import client
from school import keys
from school.documents import Course, Person, fingerprint, from_fields, sort_label
from school.store.core import EditConflict, NotFound, event_args, lex_member, retried, run
from school.store.names import INDEXES, searched_text


def queue_document(pipe, entity: str, pk: int, fields: dict[str, str], old: dict[str, str] | None = None) -> None:
    """Queue writing a document and every index derived from it (create when ``old`` is None)."""
    key = keys.doc(entity, pk)
    if old:
        stale = sorted(set(old) - set(fields))  # schema 1's "email", once upgraded
        if stale:
            pipe.hdel(key, *stale)
        pipe.zrem(keys.lex(entity), lex_member(entity, pk, old))
        if entity != "course" and old.get("schema") != fields.get("schema"):
            pipe.hincrby(keys.schemas(entity), old.get("schema", "?"), -1)
            pipe.hincrby(keys.schemas(entity), fields["schema"], 1)
        if entity == "course" and old.get("code") != fields["code"]:
            pipe.hdel(keys.course_codes(), old.get("code", ""))
    elif entity != "course":
        pipe.hincrby(keys.schemas(entity), fields["schema"], 1)
    pipe.hset(key, mapping=fields)
    INDEXES[entity].queue_write(pipe, str(pk), searched_text(entity, old or None), searched_text(entity, fields))
    pipe.zadd(keys.index(entity), {str(pk): pk})
    pipe.zadd(keys.lex(entity), {lex_member(entity, pk, fields): 0})
    if entity == "course":
        pipe.hset(keys.course_codes(), fields["code"], pk)


def reserve_ids(entity: str, count: int) -> range:
    """A block of fresh ids from INCRBY: the seeder's way to take many at once."""
    last = client().incrby(keys.ids(entity), count)
    return range(last - count + 1, last + 1)


def _save_keys(entity: str, pk: int) -> list[str]:
    own = [keys.doc(entity, pk), keys.index(entity), keys.lex(entity)]
    if entity == "course":
        return [*own, keys.course_codes(), keys.course_students(pk), keys.course_holds(pk)]
    return [*own, keys.schemas(entity)]


def save(
    entity: str, document: Course | Person, *, actor: Actor, expected: str = "", old_text: str | None = None
) -> int:
    """Create (``document.id == 0``) or update a document and its indexes; returns its id. One script
    checks a unique code, the capacity and (``expected``: the form's fingerprint) a stale edit, and moves
    the document out of the trigram sets of ``old_text`` (if not given and wrong: a second call)."""
    creating = document.id == 0
    pk = client().incr(keys.ids(entity)) if creating else document.id
    fields = document.to_hash()
    label_field = "code" if entity == "course" else "name"
    args = {
        "entity": entity,
        "id": str(pk),
        "creating": creating,
        "fields": fields,
        "sort": sort_label(entity, fields),
        "expected": expected,
        "old_label": None,
        "old_sort": None,
        "event": event_args(actor, "created" if creating else "updated", entity, pk, document.label),
        "refusals": {
            "code_taken": "Course code {code} is taken by another course.",
            "capacity": "{taken} seats are taken (enrolled and held); capacity cannot be lower.",
        },
    }
    index, text = INDEXES[entity], searched_text(entity, fields)
    stored = {"text": "" if creating else text if old_text is None else old_text}

    def attempt():
        leaves, joins = index.diff(stored["text"], text)
        args.update(gram_text=stored["text"], grams_out=len(leaves))
        try:
            return run("save", [*_save_keys(entity, pk), *leaves, *joins], args)
        except EditConflict as conflict:
            what, *now = conflict.current
        if what == "text":  # another name is stored than the one the sets were computed from
            stored["text"] = now[0]
            return None
        if what == "sort":  # an old label beyond ASCII: casefolded here, checked there
            args["old_label"] = now[0]
            args["old_sort"] = sort_label(entity, {label_field: now[0]})
            return None
        raise EditConflict(f"Someone else changed this {entity} since you opened it. Review it and save again.")

    retried(attempt)
    return pk


def get(entity: str, pk: int) -> Course | Person:
    return get_for_edit(entity, pk)[0]


def get_for_edit(entity: str, pk: int) -> tuple[Course | Person, str]:
    """The document and the fingerprint of its stored fields: one HGETALL."""
    fields = client().hgetall(keys.doc(entity, pk))
    if not fields:
        raise NotFound(f"{entity} {pk} does not exist")
    return from_fields(entity, pk, fields), fingerprint(fields)
