"""Finding employees by any part of their name: the trigram index, its search reads and its integrity."""

from __future__ import annotations

from config.redis import client
from config.store import batched
from config.store.ngrams import NgramIndex
from config.store.ngramtext import Query
from orgchart import keys
from orgchart.store.core import member_id

SEARCH_LIMIT = 1000  # name matches taken into a list search; more is not a useful search

# Employee names, searchable by any part: kept in the hire, edit and delete scripts and the import.
NAMES = NgramIndex(
    gram_key=keys.ngram,
    temp_set=lambda token: keys.search_temp(f"{token}:ngram"),
    temp_zset=keys.search_temp,
    record_key=keys.employee,
    text_field="name",
)


def suggest_employees(text: str, limit: int = 8) -> list[tuple[str, str]]:
    """(id, name) of the employees whose name holds ``text`` anywhere, in name order: one round trip
    (the trigram index). Text with no word of three characters suggests nothing."""
    if not Query.parse(text).usable:
        return []
    hits = NAMES.search(text, limit, cap=limit * 8)
    return hits.in_name_order()


def search_employee_ids(text: str) -> tuple[list[int], bool]:
    """Every matching employee id (up to ``SEARCH_LIMIT``), in name order, and whether more matched: one
    round trip, reading at most ``SEARCH_LIMIT`` candidates with their names, as the other apps' lists do
    (not the index's default of four times as many, meant for a suggestion's few)."""
    hits = NAMES.search(text, SEARCH_LIMIT, cap=SEARCH_LIMIT)
    ids = [int(pk) for pk, _ in hits.in_name_order()]
    return ids, hits.capped


def _names() -> dict[str, str]:
    """Every employee's name by id, from the name index's members (ZSCAN) and the hashes (HGET 500 a round trip)."""
    ids = [member_id(m) for m, _ in client().zscan_iter(keys.employee_names(), count=1000)]
    ids += [int(k.rsplit(":", 1)[1]) for k in client().scan_iter(match=keys.employee("*"), count=1000, _type="hash")]
    names: dict[str, str] = {}
    for chunk in batched(sorted(set(ids))):
        pipe = client().pipeline(transaction=False)
        for pk in chunk:
            pipe.hget(keys.employee(pk), "name")
        names.update({str(pk): name for pk, name in zip(chunk, pipe.execute()) if name is not None})
    return names


def name_gram_drift() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(missing, extra) trigrams per employee id: the index against the names (SCAN/SSCAN, HGET)."""
    return NAMES.drift(_names())


def rebuild_name_grams() -> None:
    """Rebuild the trigram index from the names: drop every piece set and re-add, in one transaction."""
    names = _names()
    pipe = client().pipeline(transaction=True)
    NAMES.queue_rebuild(pipe, names.items(), NAMES.index_keys())
    pipe.execute()
