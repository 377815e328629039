"""Deletes: the document and every reference to it, in one script, after one read of its relations.

The keys a delete touches depend on its relations, so they are read first; the script deletes only
if every relation still holds exactly what was read, and the read runs again if not: no WATCH.
"""

from __future__ import annotations

from config.activity import Actor
from config.redis import client
from config.store import Busy, watch_retries
from config.store.scripts import run_together
from school import keys
from school.documents import from_fields, sort_label
from school.store.core import EditConflict, NotFound, event_args, queue_run, retried, run
from school.store.names import INDEXES, TEXT_FIELD, searched_text

SCAN_COUNT = 1000

# entity -> its relations: (its own key, the other side's key, the hold key of a pair if any); each key's
# Redis type is the one its function declares (keys.kind)
_RELATIONS = {
    "course": (
        (keys.course_instructors, keys.instructor_courses, None),
        (keys.course_students, keys.student_courses, None),
        (keys.course_holds, keys.student_holds, lambda pk, other: keys.hold(pk, other)),
    ),
    "instructor": ((keys.instructor_courses, keys.course_instructors, None),),
    "student": (
        (keys.student_courses, keys.course_students, None),
        (keys.student_holds, keys.course_holds, lambda pk, other: keys.hold(other, pk)),
    ),
}


def _read(entity: str, pk: int) -> tuple[dict[str, str], list[list[str]]]:
    """The document and the members of each of its relations: one round trip, more for a large roster."""
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.doc(entity, pk))
    for own, _, _ in _RELATIONS[entity]:
        if own is keys.course_students:
            pipe.zscan(own(pk), 0, count=SCAN_COUNT)
        elif keys.kind(own) == "zset":
            pipe.zrange(own(pk), 0, -1)  # bounded: every seat write prunes the dead holds
        else:
            pipe.smembers(own(pk))  # bounded side
    fields, *replies = pipe.execute()
    members = []
    for (own, _, _), reply in zip(_RELATIONS[entity], replies):
        if own is keys.course_students:
            cursor, found = reply
            found = {member for member, _ in found}
            while cursor:
                cursor, more = client().zscan(own(pk), cursor, count=SCAN_COUNT)
                found.update(member for member, _ in more)
            reply = found
        members.append(sorted(reply, key=int))
    return fields, members


def _delete_call(entity: str, pk: int, actor: Actor) -> tuple[str, list[str], dict] | None:
    """A document's delete call (its label, the keys, the arguments) from a read; None when it is gone."""
    fields, members = _read(entity, pk)
    if not fields:
        return None
    tail = keys.course_codes() if entity == "course" else keys.schemas(entity)
    label_field = "code" if entity == "course" else "name"
    script_keys = [keys.doc(entity, pk), keys.index(entity), keys.lex(entity), tail]
    relations = []
    for (own, other, hold), ids in zip(_RELATIONS[entity], members):
        relation = {"own": len(script_keys) + 1, "kind": keys.kind(own), "other_kind": keys.kind(other)}
        relation.update(members=ids, others=[], holds=[])
        script_keys.append(own(pk))
        for other_id in ids:
            script_keys.append(other(int(other_id)))
            relation["others"].append(len(script_keys))
            if hold:
                script_keys.append(hold(pk, int(other_id)))
                relation["holds"].append(len(script_keys))
        relations.append(relation)
    grams_from = len(script_keys) + 1
    script_keys += INDEXES[entity].keys_for(searched_text(entity, fields))  # its code is checked as its label
    label = from_fields(entity, pk, fields).label
    args = {
        "entity": entity,
        "id": str(pk),
        "label_field": label_field,
        "label": fields.get(label_field, ""),
        "sort": sort_label(entity, fields),
        "relations": relations,
        "gram_field": TEXT_FIELD[entity],
        "gram_text": fields.get(TEXT_FIELD[entity], ""),
        "grams_from": grams_from,
        "event": event_args(actor, "deleted", entity, pk, label, gone=True),
    }
    return label, script_keys, args


def delete(entity: str, pk: int, *, actor: Actor) -> str:
    """Delete a document and every reference to it; returns its label."""

    def attempt():
        call = _delete_call(entity, pk, actor)
        if call is None:
            raise NotFound(f"{entity} {pk} does not exist")
        label, script_keys, args = call
        try:
            run("delete", script_keys, args)
        except EditConflict:  # its relations changed since they were read: read them again
            return None
        return label

    return retried(attempt)


def delete_many(entity: str, ids: list[int], *, actor: Actor) -> tuple[list[str], int]:
    """Delete many documents as ``delete`` does, their scripts in one MULTI/EXEC: the labels deleted and
    how many were gone. One whose relations changed in between is read again."""
    deleted, gone, remaining = [], 0, list(ids)
    for _ in range(watch_retries()):
        calls = []
        for pk in remaining:
            call = _delete_call(entity, pk, actor)
            if call is None:
                gone += 1
            else:
                calls.append((pk, *call))
        done, remaining, missing = run_together(
            calls, lambda pipe, script_keys, args: queue_run(pipe, "delete", script_keys, args)
        )
        deleted += done
        gone += missing
        if not remaining:
            return deleted, gone
    raise Busy("Too many concurrent changes; please try again.")
