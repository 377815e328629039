"""The post list: one page of summaries from the sorted indexes, filtered and searched, in one round trip."""

from __future__ import annotations

import uuid
from dataclasses import replace

from cms import keys
from cms.documents import SUMMARY, PostSummary
from cms.store.core import TITLES
from config.listing import ListState
from config.redis import client
from config.store import batched, pipelined
from config.store.ngrams import Hits
from config.store.ngramtext import Query
from config.store.scripts import execute, lua, queue_script, register
from config.store.sorting import SORT_LUA, queue_sort

SEARCH_LIMIT = 1000  # title matches taken into a list search; more is not a useful search
# The most posts a filtered list sorts by a field (each one's field read, a command a post, and sorted
# here: ``_sorted_page``): past it, the list asks for a narrower filter and keeps its order by last save.
SORT_LIMIT = 2000
SORTS = ("updated", "title", "author", "status")
ADD_SLICE = 256  # a search's ids added to its scratch set a command

_BY_TITLE = register(SORT_LUA + "\n" + lua(__file__, "by_title"))  # the whole list by title
_BY_STATUS = register(SORT_LUA + "\n" + lua(__file__, "by_status"))  # the whole list by status
_PREFIX_SEARCH = register(lua(__file__, "prefix_search"))  # title prefix search into a scratch set


def search_titles(text: str, limit: int = SEARCH_LIMIT) -> list[tuple[str, str]]:
    """(post id, title) of the posts whose title holds ``text`` anywhere, newest save first: the trigram
    index, one round trip. At most ``limit`` candidates are read: the index's default, meant for a
    suggestion's few, reads several times as many titles for a common word."""
    return _title_hits(text, limit).items


def _title_hits(text: str, limit: int, names: bool = True) -> Hits:
    """``search_titles``'s hits, with whether more titles matched than ``limit`` (``Hits.capped``);
    ``names=False``: no title read where holding the pieces is matching (``NgramIndex.queue_search``)."""
    return TITLES.search(text, limit, cap=limit, names=names) if Query.parse(text).usable else Hits([])


AUTHORS_MATCHED = 20  # authors an author filter takes at most (those starting with what was typed)


def authors_matching(text: str) -> list[str]:
    """The authors the filter means, in any case: those named ``text``, else those starting with it."""
    folded = text.casefold().replace("\x00", "").encode()
    members = client().zrangebylex(keys.authors(), b"[" + folded, b"[" + folded + b"\xff", 0, AUTHORS_MATCHED)
    pairs = [member.split("\x00", 1) for member in members]
    exact = [name for key, name in pairs if key.encode() == folded]
    return exact or [name for _, name in pairs]


def list_posts(state: ListState) -> tuple[list[PostSummary], int, bool]:
    """``list_page``'s page, total and cap, for callers that do not ask about the sort."""
    items, total, capped, _ = list_page(state)
    return items, total, capped


def list_page(state: ListState) -> tuple[list[PostSummary], int, bool, bool]:
    """One page of the post list, its total, whether a title search left matches past ``SEARCH_LIMIT``,
    and whether a sort by a field was refused (past ``SORT_LIMIT``: the list keeps its order by last save).

    The source is a sorted index scored by last save: the whole list, one status, one author, or (for
    two filters or a search) a scratch set built in the same MULTI/EXEC. SORT … BY nosort keeps that
    order, applies LIMIT as a range and joins each id to the summary fields only: no body is read.

    A word of three characters or more finds any part of a title: the trigram index gives the matching
    ids first (two round trips), or, for a word that is one piece, its set holds exactly its matches
    and the page's transaction intersects it itself (one round trip, no cap, no title read). Shorter
    words keep the lexicographic index's prefix search. Sorted by title or status, the whole list pages
    the title index or the two status indexes, bounded whatever the number of posts; a filtered or
    searched list is sorted here by each post's field, at most ``SORT_LIMIT`` of them (``_sorted_page``:
    two more round trips, no command that reads or sorts the whole list).
    """
    filters, authors, union = [], [], ""
    if state.filters.get("status"):
        filters.append(keys.by_status(state.filters["status"]))
    if state.filters.get("author"):
        authors = authors_matching(state.filters["author"])
        if not authors:
            return [], 0, False, False
        union = keys.scratch(uuid.uuid4().hex) if len(authors) > 1 else ""
        filters.append(union or keys.by_author(authors[0]))
    prefix = state.q.replace("\x00", "").casefold()
    found: list[str] | None = None
    capped = False
    query = Query.parse(state.q)
    matches = TITLES.matches_set(query)  # the piece's set holds exactly the matches: read as a filter, uncapped
    if query.usable:
        prefix = ""
        if not matches:
            hits = _title_hits(state.q, SEARCH_LIMIT, names=False)  # the ids: a thousand titles are one long read
            found, capped = hits.ids, hits.capped
            if not found:
                return [], 0, capped, False
    scratch = keys.scratch(uuid.uuid4().hex) if matches or found or prefix or len(filters) > 1 else ""
    temporary = [key for key in (scratch, union) if key]
    pipe = client().pipeline(transaction=bool(temporary))
    if union:  # several authors match what was typed: their posts, in list order
        pipe.zunionstore(union, [keys.by_author(author) for author in authors], aggregate="MAX")
    if matches or found:  # the matching ids, ordered by the sort index or the filters
        ids = matches
        if found:
            ids = scratch
            for part in batched(found, ADD_SLICE):  # a thousand ids: a few commands, none long
                pipe.zadd(scratch, dict.fromkeys(part, 0))
        indexes = filters or [keys.by_updated()]
        pipe.zinterstore(scratch, {ids: 0, **dict.fromkeys(indexes, 1)}, aggregate="MAX")
        source = scratch
    elif prefix:
        indexes = filters or [keys.by_updated()]
        low, high = b"[" + prefix.encode(), b"(" + prefix.encode() + b"\xff"
        queue_script(pipe, _PREFIX_SEARCH, [keys.titles(), scratch, *indexes], [low, high])
        source = scratch
    elif scratch:
        pipe.zinterstore(scratch, filters, aggregate="MAX")
        source = scratch
    else:
        source = filters[0] if filters else keys.by_updated()
    pipe.zcard(source)
    gets = ["#", *(f"{keys.post('*')}->{name}" for name in SUMMARY)]
    field, desc = state.sort_key, state.descending
    by_field = ""
    whole = source == keys.by_updated()
    if field == "title" and whole:
        queue_script(pipe, _BY_TITLE, [keys.titles()], [state.offset, state.per_page, "1" if desc else "0", *gets])
    elif field == "status" and whole:
        order = [keys.by_status(status) for status in (("published", "draft") if desc else ("draft", "published"))]
        queue_script(pipe, _BY_STATUS, order, [state.offset, state.per_page, *gets])
    elif field in ("title", "author", "status"):
        by_field = "title_member" if field == "title" else field  # a title: folded, as listed
        pipe.zrange(source, 0, SORT_LIMIT)  # one past the limit says it is passed
    else:
        options = dict(start=state.offset, num=state.per_page, by_nosort=True, get=gets, desc=state.order != "updated")
        queue_sort(pipe, source, **options)
    if temporary:
        pipe.delete(*temporary)
    replies = execute(pipe)
    total, flat = replies[-3:-1] if temporary else replies[-2:]
    if by_field and len(flat) > SORT_LIMIT:  # more posts than a sort by a field reads: by last save, said so
        items, total, capped, _ = list_page(replace(state, order="-updated"))
        return items, total, capped, True
    if by_field:
        flat = _sorted_page(flat, by_field, state)
    return _summaries(flat), total, capped, False


def _sorted_page(ids: list[str], field: str, state: ListState) -> list:
    """The page of ``ids`` (in the index's order) sorted by each post's ``field``, flat as SORT … GET answers:
    the fields read a command a post and sorted here, then the page's rows. Two round trips, and no one
    command that reads or sorts the whole list, as a SORT … BY of a thousand posts did."""
    pipe = client().pipeline(transaction=False)
    for pk in ids:
        pipe.hget(keys.post(pk), field)
    values = pipe.execute()
    order = sorted(range(len(ids)), key=lambda n: (values[n] or "").encode(), reverse=state.descending)
    page = [ids[n] for n in order[state.offset : state.offset + state.per_page]]
    pipe = client().pipeline(transaction=False)
    for pk in page:
        pipe.hmget(keys.post(pk), SUMMARY)
    return [value for pk, row in zip(page, pipe.execute()) for value in (pk, *row)]


def _summaries(flat: list) -> list[PostSummary]:
    """The SORT … GET reply (``#`` then SUMMARY) as list rows; a post deleted meanwhile is left out."""
    values = iter(flat)
    return [
        PostSummary(int(pk), title, author or "", status or "", float(updated or 0), int(version or 1),
                    int(comments or 0))
        for pk, title, author, status, updated, version, comments in zip(*[values] * (1 + len(SUMMARY)))
        if title is not None
    ]  # fmt: skip


def post_labels(post_ids: list[int]) -> list[tuple[int, str]]:
    """(id, title) of each post that exists, in the order given: one pipeline of HGETs."""
    titles = pipelined(post_ids, lambda pipe, post_id: pipe.hget(keys.post(post_id), "title"))
    return [(i, title) for i, title in zip(post_ids, titles) if title is not None]
