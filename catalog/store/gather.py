"""Scatter-gather over the catalog's partitions: what each partition is asked for, and the merge of
their parts into one page, one tag cloud (docs/cluster.md).

With one partition every piece is the identity: its part is the page. With several, each partition
is asked for every row up to the page's end, its window (within ``WINDOW_LIMIT``), and the parts are
ordered as one sorted set would order them.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog import keys
from config.redis import client
from config.store.sorting import queue_sort

TAG_CLOUD = 40  # tags the list's cloud shows
# Rows a list of several partitions reaches (as a sharded search engine's result window): a page
# past them would have every partition send every row before it. Narrowing the list reaches the rest.
WINDOW_LIMIT = 2_500


def cloud(replies: list[list]) -> list[tuple[str, int]]:
    """The catalog's tag cloud from each partition's (tag, score) pairs, in ZREVRANGE's order."""
    if len(replies) == 1:
        return [(tag, int(float(score))) for tag, score in replies[0]]
    summed: dict[str, int] = {}
    for pairs in replies:
        for tag, score in pairs:
            summed[tag] = summed.get(tag, 0) + int(float(score))
    return sorted(summed.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)[:TAG_CLOUD]


def cloud_size() -> int:
    """Tags each partition's cloud is read for: with several, all (only whole clouds sum exactly)."""
    return TAG_CLOUD if keys.PARTITIONS == 1 else 0


@dataclass(frozen=True)
class Window:
    """What each partition is asked for: rows ``start`` to ``start + count``, with their fields
    (``inline``) or, past the first page of several partitions, their ids and scores alone."""

    start: int
    count: int
    inline: bool


def window(offset: int, limit: int) -> Window:
    """The page itself with one partition; with several, every row to its end (within WINDOW_LIMIT)."""
    if keys.PARTITIONS == 1:
        return Window(offset, limit, True)
    # past the window no row is merged (``merged``): one row a partition, for the totals' sake
    return Window(0, min(offset + limit, WINDOW_LIMIT) if offset < WINDOW_LIMIT else 1, offset == 0)


def merged(parts: list[tuple[list, list]], desc: bool, offset: int, limit: int, ident=lambda row: row.id) -> list:
    """The page of the partitions' parts, each (its rows, its window's flat ZRANGE ... WITHSCORES), as
    one sorted set would order them (score, then id as bytes), then cut. A row is matched to its score
    by its id (``ident``), not its place, so a write between the two reads cannot mismatch them."""
    if len(parts) == 1:
        return parts[0][0]
    limit = max(0, min(offset + limit, WINDOW_LIMIT) - offset)
    scored = []
    for rows, pairs in parts:
        scores = dict(zip(pairs[0::2], pairs[1::2]))
        scored += [((float(scores.get(str(ident(row)), 0)), str(ident(row))), row) for row in rows]
    scored.sort(key=lambda item: item[0], reverse=desc)
    return [row for _, row in scored[offset : offset + limit]]


def flat(pairs: list[tuple]) -> list:
    """ZRANGE ... WITHSCORES's (member, score) pairs as one flat list, as a script returns them."""
    return [x for pair in pairs for x in pair]


def merged_ids(pairs: list[list], desc: bool, offset: int, limit: int) -> list[str]:
    """The page's ids from each partition's window of (id, score) pairs (flat), merged as ``merged``."""
    return merged([(flat[0::2], flat) for flat in pairs], desc, offset, limit, ident=lambda row: row)


def fields_of(ids: list[str], fields: tuple[str, ...]) -> list[list[str | None]]:
    """``[id, *fields]`` of each product, in the order given: one pipeline of HMGETs."""
    pipe = client().pipeline(transaction=False)
    for product_id in ids:
        pipe.hmget(keys.product(product_id), fields)
    return [[product_id, *values] for product_id, values in zip(ids, pipe.execute())] if ids else []


def gets(p: int, fields: tuple[str, ...]) -> list[str]:
    """SORT's GET patterns of the id and ``fields`` of partition ``p``'s products."""
    return ["#", *(f"{keys.product_glob(p)}->{name}" for name in fields)]


def queue_window(pipe, source: str, window: Window, gets: list[str], desc: bool) -> None:
    """Queue a partition's window of ``source``: its rows (``inline``), and the scores to merge by. Its rows
    by SORT itself on one server: the filtered list's transaction writes its sets (refused alike by a server
    out of memory), and ``product_page`` answers the benchmark's questions."""
    if window.inline:
        queue_sort(pipe, source, itself=True, start=window.start, num=window.count, by_nosort=True, get=gets, desc=desc)
    if keys.PARTITIONS > 1:
        (pipe.zrevrange if desc else pipe.zrange)(
            source, window.start, window.start + window.count - 1, withscores=True
        )
