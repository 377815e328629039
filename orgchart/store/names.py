"""Finding employees by any part of their name: the trigram index, its search reads and its integrity."""

from __future__ import annotations

from config.redis import client
from config.store import batched
from config.store.ngrams import Hits, NgramIndex
from config.store.ngramtext import Query
from orgchart import keys
from orgchart.documents import fold
from orgchart.store.core import member_id, search_range

SEARCH_LIMIT = 1000  # name matches taken into a list search; more is not a useful search

# Employee names, searchable by any part: kept in the hire, edit and delete scripts and the import.
NAMES = NgramIndex(
    gram_key=keys.ngram,
    temp_set=lambda token: keys.search_temp(f"{token}:ngram"),
    temp_zset=keys.search_temp,
    record_key=keys.employee,
    text_field="name",
)


def _ranked(text: str, limit: int, cap: int) -> tuple[list[tuple[str, str]], bool]:
    """(id, name) of the employees whose name holds ``text``: the names that are ``text`` first, then those
    starting with it, then any other holding it, each group in name order; and whether more matched.

    One round trip: the name index's range of names starting with the text beside the n-gram search
    (at most ``cap`` candidates, read in no useful order). The range holds the person whose full name
    was typed whatever the cap: what a user typed whole is never hidden."""
    query = Query.parse(text)
    if not query.usable:
        return [], False
    low, high = search_range(text.strip())
    pipe = client().pipeline(transaction=True)
    pipe.zrangebylex(keys.employee_names(), low, high, 0, limit + 1)
    read = NAMES.queue_search(pipe, query, cap)
    replies = pipe.execute()
    hits = read(replies[1:])
    starting = replies[0]
    prefixed = [str(member_id(entry)) for entry in starting[:limit]]
    names = dict(hits.items)
    missing = [pk for pk in prefixed if pk not in names]
    if missing:  # a prefix match past the pieces' cap: its name, in one more read
        pipe = client().pipeline(transaction=False)
        for pk in missing:
            pipe.hget(keys.employee(pk), "name")
        names.update({pk: name for pk, name in zip(missing, pipe.execute()) if name is not None})
    folded = fold(text.strip())
    first = [pk for pk in prefixed if pk in names]
    first.sort(key=lambda pk: (fold(names[pk]) != folded, fold(names[pk]), int(pk)))
    shown = set(first)
    rest = [(pk, name) for pk, name in Hits(hits.items).in_name_order() if pk not in shown]
    ranked = [(pk, names[pk]) for pk in first] + rest
    return ranked[:limit], hits.capped or len(starting) > limit or len(ranked) > limit


def suggest_employees(text: str, limit: int = 8) -> list[tuple[str, str]]:
    """(id, name) of the employees whose name holds ``text`` anywhere, the name itself and the names
    starting with it first (``_ranked``): one round trip (two when a name starting so was past the cap)."""
    return _ranked(text, limit, limit * 8)[0]


def search_employee_ids(text: str) -> tuple[list[int], bool]:
    """Every matching employee id (up to ``SEARCH_LIMIT``), ranked as ``_ranked`` does, and whether
    more matched."""
    ranked, capped = _ranked(text, SEARCH_LIMIT, SEARCH_LIMIT)
    return [int(pk) for pk, _ in ranked], capped


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
