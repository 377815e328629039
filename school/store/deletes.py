"""Deletes: the document and every reference to it, in one script, after one read of its relations.

The keys a delete touches depend on the document's relations (the other side
of each), so they are read first (one pipelined round trip; a course's roster
by SSCAN, bounded by its capacity); the script then deletes only if every
relation still holds exactly what was read, and the read runs again if not:
two round trips, with no WATCH.
"""

from __future__ import annotations

from config.activity import Actor
from config.redis import client
from school import keys
from school.documents import from_fields, sort_label
from school.store.core import EditConflict, NotFound, event_args, retried, run
from school.store.names import INDEXES, TEXT_FIELD, searched_text

SCAN_COUNT = 1000

# entity -> its relations: (own key, kind, the other entity, the other side's key, has hold keys)
_RELATIONS = {
    "course": (
        (keys.course_instructors, "set", keys.instructor_courses, None),
        (keys.course_students, "set", keys.student_courses, None),
        (keys.course_holds, "zset", keys.student_holds, lambda pk, other: keys.hold(pk, other)),
    ),
    "instructor": ((keys.instructor_courses, "set", keys.course_instructors, None),),
    "student": (
        (keys.student_courses, "set", keys.course_students, None),
        (keys.student_holds, "zset", keys.course_holds, lambda pk, other: keys.hold(other, pk)),
    ),
}


def _read(entity: str, pk: int) -> tuple[dict[str, str], list[list[str]]]:
    """The document and the members of each of its relations, in one round trip (more only
    for a roster too large for one SSCAN reply)."""
    pipe = client().pipeline(transaction=False)
    pipe.hgetall(keys.doc(entity, pk))
    for own, kind, _, _ in _RELATIONS[entity]:
        if kind == "zset":
            pipe.zrange(own(pk), 0, -1)  # bounded: every seat write prunes the dead holds
        elif own is keys.course_students:
            pipe.sscan(own(pk), 0, count=SCAN_COUNT)
        else:
            pipe.smembers(own(pk))  # bounded side
    fields, *replies = pipe.execute()
    members = []
    for (own, _, _, _), reply in zip(_RELATIONS[entity], replies):
        if own is keys.course_students:
            cursor, found = reply
            found = set(found)
            while cursor:
                cursor, more = client().sscan(own(pk), cursor, count=SCAN_COUNT)
                found.update(more)
            reply = found
        members.append(sorted(reply, key=int))
    return fields, members


def delete(entity: str, pk: int, *, actor: Actor) -> str:
    """Delete a document and every reference to it; returns its label."""
    doc_key = keys.doc(entity, pk)
    tail = keys.course_codes() if entity == "course" else keys.schemas(entity)
    label_field = "code" if entity == "course" else "name"

    def attempt():
        fields, members = _read(entity, pk)
        if not fields:
            raise NotFound(f"{entity} {pk} does not exist")
        script_keys = [doc_key, keys.index(entity), keys.lex(entity), tail]
        relations = []
        for (own, kind, other, hold), ids in zip(_RELATIONS[entity], members):
            relation = {"own": len(script_keys) + 1, "kind": kind, "members": ids, "others": [], "holds": []}
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
        try:
            run(
                "delete",
                script_keys,
                {
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
                },
            )
        except EditConflict:  # its relations changed since they were read: read them again
            return None
        return label

    return retried(attempt)
