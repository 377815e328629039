"""Finding courses by any part of their title and people by any part of their name: the trigram indexes."""

from __future__ import annotations

from functools import partial

from config.redis import client
from config.store import batched, pipelined
from config.store.ngrams import NgramIndex
from config.store.ngramtext import Query
from school import keys

SEARCH_LIMIT = 1000  # matches taken into a list search; more is not a useful search
TEXT_FIELD = {"course": "title", "instructor": "name", "student": "name"}  # a course's code keeps its prefix index

INDEXES = {
    entity: NgramIndex(
        gram_key=partial(keys.ngram, entity),
        temp_set=lambda token: keys.search_temp(f"{token}:s"),
        temp_zset=keys.search_temp,
        record_key=partial(keys.doc, entity),
        text_field=field,
    )
    for entity, field in TEXT_FIELD.items()
}


def searched_text(entity: str, fields: dict[str, str] | None) -> str | None:
    """A document's indexed text: a person's name, a course's code and title (None for no document)."""
    if fields is None:
        return None
    if entity == "course":
        return f"{fields.get('code', '')} {fields.get('title', '')}"
    return fields.get("name", "")


def usable(q: str) -> bool:
    """Whether ``q`` is for the trigram index (a word of three characters or more)."""
    return Query.parse(q).usable


def queue_search(pipe, entity: str, q: str, cap: int | None = None):
    """Queue a search on a MULTI pipeline; returns what turns its replies into the matching ids in text
    order, and whether more than ``cap`` candidates were there."""
    read = INDEXES[entity].queue_search(pipe, Query.parse(q), SEARCH_LIMIT if cap is None else cap)

    def ids(replies) -> tuple[list[int], bool]:
        hits = read(replies)
        return [int(pk) for pk, _ in hits.in_name_order()], hits.capped

    return ids


def search_ids(entity: str, q: str, limit: int = SEARCH_LIMIT) -> list[int]:
    """Ids of the documents whose name (a course's title) holds ``q`` anywhere: one round trip."""
    pipe = client().pipeline(transaction=True)
    read = queue_search(pipe, entity, q, cap=max(limit * 4, limit))
    return read(pipe.execute())[0][:limit]


def texts(entity: str) -> dict[str, str]:
    """Every document's indexed text (``searched_text``) by id: the id index by ZSCAN, HMGET 500 a round trip."""
    found: dict[str, str] = {}
    fields = ("code", "title") if entity == "course" else ("name",)
    for part in batched(int(pk) for pk, _ in client().zscan_iter(keys.index(entity), count=1000)):
        for pk, values in zip(part, pipelined(part, lambda pipe, pk: pipe.hmget(keys.doc(entity, pk), fields))):
            if values[-1] is not None:
                found[str(pk)] = searched_text(entity, dict(zip(fields, values)))
    return found


def gram_drift(entity: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(missing, extra) trigrams per id: the index against the documents (SCAN/SSCAN, HGET)."""
    return INDEXES[entity].drift(texts(entity))


def rebuild_grams() -> None:
    """Rebuild every trigram index from the documents: drop each piece set and re-add, in one transaction."""
    pipe = client().pipeline(transaction=True)
    for entity, index in INDEXES.items():
        index.queue_rebuild(pipe, texts(entity).items(), index.index_keys())
    pipe.execute()
