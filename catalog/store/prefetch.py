"""The round trip before a filtered or searched product list's own: the search's hits, and with a
filter the tag names its chips count and the size of each set it keeps products of, which bound
the list (whether it is small enough for the chips to count it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from catalog import keys
from catalog.documents import name_key, sku_key
from catalog.store import gather
from catalog.store.core import NAMES
from config.redis import client
from config.store.ngrams import Hits
from config.store.ngramtext import N, Query

if TYPE_CHECKING:
    from catalog.store.listing import ProductQuery

# Name matches taken into a search (the school's too); more is not a useful search. Each one costs its
# name read and checked, and its place in the list's intersection: a page's cost follows them.
SEARCH_LIMIT = 1000
# The chips count a filtered list when it can hold at most this many products (``Prefetched.bound``):
# each count is an intersection costing the smaller of the list and the tag's set, one per tag in one
# transaction, which for a broad filter would hold the server as long as the list is large.
LIVE_COUNT_LIMIT = 2000


class _Searched(NamedTuple):
    """What one partition's search reads in the prefetch gave."""

    ids: list[str]  # ids found by name (checked) or by prefix
    capped: bool  # more than SEARCH_LIMIT of them
    matched: int  # how many match, at most
    unions: list[tuple[str, ...]] | None  # the matches as sets (``Prefetched.sets``), or None
    long_names: int = 0  # names with a word too long for the vocabulary, to search by name


class _TooBroad(Exception):
    """A query word is inside more kept words than the vocabulary's read takes: search the pieces."""


def _queue_search(pipe, q: str, query: Query, p: int, vocabulary: bool):
    """Queue partition ``p``'s search reads on ``pipe``; returns what turns their replies into what it
    found (``_Searched``), and how many replies that takes.

    With ``vocabulary``, the matches are each query word's union of sets when they can be
    (``NgramIndex.queue_vocabulary``), which the list reads as it reads a tag's, with no cap and no
    name read (a word in thousands of names would otherwise read a thousand names a page). Else any
    part of a name (the trigram index), or, when every word is shorter than a piece, names starting
    with ``q`` (the lexicographic index).
    """
    start = len(pipe.command_stack)
    read_words = NAMES[p].queue_vocabulary(pipe, query) if vocabulary else None
    if read_words is not None:
        for word in query.long:
            if len(word) == N:  # a word of three characters: its piece's set, sized here
                pipe.scard(NAMES[p].gram_key(word))
    elif query.usable:
        read_names = NAMES[p].queue_search(pipe, query, SEARCH_LIMIT, names=False)
    else:
        prefix = name_key(q).encode()
        pipe.zrangebylex(keys.names(p), b"[" + prefix, b"[" + prefix + b"\xff", 0, SEARCH_LIMIT + 1)
    count = len(pipe.command_stack) - start

    def read(replies: list) -> _Searched:
        if read_words is not None:
            scripted = count - sum(len(word) == N for word in query.long)  # the vocabulary's read, if sent
            found = read_words(replies[:scripted])
            if found is None:
                raise _TooBroad
            pieces = iter(replies[scripted:])
            sizes = [size if size is not None else next(pieces) for size in found.sizes]
            return _Searched([], False, min(sizes), found.unions, found.long_names)
        if query.usable:
            hits = read_names(replies[:count])
            return _Searched(hits.ids, hits.capped, len(hits.ids), None)
        members = replies[0]
        ids = [m.rsplit("\x00", 1)[1] for m in members[:SEARCH_LIMIT]]
        return _Searched(ids, len(members) > SEARCH_LIMIT, len(ids), None)

    return read, count


@dataclass
class Prefetched:
    """What the round trip before the list's transaction read."""

    # the search's ids by partition (with ``sets``, those beside the sets: the exact SKU's, long names')
    search: dict[int, list[str]]
    capped: bool = False  # the search took SEARCH_LIMIT names and left more
    matched: dict[int, int] = field(default_factory=dict)  # how many the search found (at most), by partition
    # the matches as each word's union of sets, by partition (``NgramIndex.queue_vocabulary``)
    sets: dict[int, list[tuple[str, ...]]] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)  # the tag cloud's names, to count
    sizes: dict[str, int] = field(default_factory=dict)  # each filter set's size (SCARD), by tag or type
    bound: int = 0  # the most products the filtered list can hold, summed over the partitions

    @property
    def countable(self) -> bool:
        """Whether the list is small enough for its chips to count it (``LIVE_COUNT_LIMIT``): a capped
        search's list can hold more than the limit too, so its chips count the catalog."""
        return not self.capped and self.bound <= LIVE_COUNT_LIMIT

    def one_set(self, p: int) -> str:
        """The key of the search's matches in partition ``p`` when they are one set and nothing more."""
        unions = self.sets.get(p)
        if self.search.get(p) or not unions or len(unions) > 1 or len(unions[0]) != 1:
            return ""
        return unions[0][0]

    def with_chosen(self, cloud: list[tuple[str, int]], chosen: tuple[str, ...]) -> list[tuple[str, int]]:
        """The catalog's tag cloud with every chosen tag shown, with its size read before the list."""
        shown = {tag for tag, _ in cloud}
        return cloud + [(tag, self.sizes[tag]) for tag in dict.fromkeys(chosen) if tag not in shown]


def sets_of(query: ProductQuery, p: int) -> list[tuple[str, str]]:
    """(name, key) of each set the filter keeps products of in partition ``p``: type, all-of, any-of."""
    chosen = [(f"type:{query.type}", keys.type_index(query.type, p))] if query.type else []
    return chosen + [(tag, keys.tag_index(tag, p)) for tag in dict.fromkeys((*query.tags_all, *query.tags_any))]


def _bound(query: ProductQuery, sizes: dict[str, int], hits: int | None, catalog: int) -> int:
    """The most products one partition's filtered list can hold: its smallest filter set, its any-of sets
    together or its search's hits; its catalog when none applies (the none-of tags alone)."""
    limits = [sizes[f"type:{query.type}"]] if query.type else []
    limits += [sizes[tag] for tag in query.tags_all]
    if query.tags_any:
        limits.append(sum(sizes[tag] for tag in dict.fromkeys(query.tags_any)))
    if hits is not None:
        limits.append(hits)
    return min(limits) if limits else catalog


def search_names(query: Query, cap: int, partitions, long_names: bool = False) -> dict[int, Hits]:
    """Each of ``partitions``' search of the pieces (at most ``cap`` candidates checked by name; with
    ``long_names``, only names with a word too long for the vocabulary): one round trip."""
    pipe = client().pipeline(transaction=keys.PARTITIONS == 1)
    reads = []
    for p in partitions:
        start = len(pipe.command_stack)
        within = NAMES[p].long_key if long_names else ""
        reads.append((p, start, NAMES[p].queue_search(pipe, query, cap, within=within)))
    replies = pipe.execute()
    return {p: read(replies[start:]) for p, start, read in reads}


def _search_long_names(query: Query, partitions: list[int], found: Prefetched) -> None:
    """Add to ``found`` the names holding ``query`` with a word too long for the vocabulary: one round trip."""
    for p, hits in search_names(query, SEARCH_LIMIT, partitions, long_names=True).items():
        found.search[p] += hits.ids
        found.matched[p] += len(hits.ids)
        found.capped = found.capped or hits.capped


def prefetch(query: ProductQuery, count_tags: bool, vocabulary: bool = True) -> Prefetched:
    """The round trip before the list's transaction: the search hits of every partition (or its matches
    as sets) and the exact SKU, and with a filter the tag cloud's names (the transaction must know
    which tags to count) and each filter set's size (whether the list is small enough to count). A
    query word inside too many kept words costs the round trip again, searching the pieces; names
    with a word too long for the vocabulary cost one more (``_search_long_names``)."""
    transaction = bool(query.q) and keys.PARTITIONS == 1  # one partition: its scratch keys in one MULTI
    pipe = client().pipeline(transaction=transaction)
    reads = []
    if query.q:
        parsed = Query.parse(query.q)
        reads = [(p, *_queue_search(pipe, query.q, parsed, p, vocabulary)) for p in keys.partitions()]
        pipe.hget(keys.skus(), sku_key(query.q))
    clouds_at = len(pipe.command_stack)
    if count_tags:
        for p in keys.partitions():
            pipe.zrevrange(keys.tags(p), 0, gather.cloud_size() - 1, withscores=True)
        unbounded = not query.q and not sets_of(query, 0)  # the none-of tags alone: bound by the catalog
        for p in keys.partitions():
            for _, key in sets_of(query, p):
                pipe.scard(key)
            if unbounded:
                pipe.zcard(keys.products(p))
    replies = pipe.execute()
    found = Prefetched({p: [] for p in keys.partitions()})
    at = 0
    long_names = []
    try:
        for p, read, count in reads:
            searched = read(replies[at : at + count])
            found.search[p], found.matched[p], at = searched.ids, searched.matched, at + count
            found.capped = found.capped or searched.capped
            if searched.unions is not None:
                found.sets[p] = searched.unions
            if searched.long_names:
                long_names.append(p)
    except _TooBroad:
        return prefetch(query, count_tags, vocabulary=False)
    if long_names:
        _search_long_names(parsed, long_names, found)
    if query.q and replies[at]:
        by_sku = replies[at]
        found.search[keys.partition_of(by_sku)].append(by_sku)
        found.matched[keys.partition_of(by_sku)] += 1
    if not count_tags:
        return found
    found.tags = [tag for tag, _ in gather.cloud(replies[clouds_at : clouds_at + keys.PARTITIONS])]
    sizes = iter(replies[clouds_at + keys.PARTITIONS :])
    for p in keys.partitions():
        mine = {name: next(sizes) for name, _ in sets_of(query, p)}
        catalog = next(sizes) if unbounded else 0
        for name, size in mine.items():
            found.sizes[name] = found.sizes.get(name, 0) + size
        found.bound += _bound(query, mine, found.matched[p] if query.q else None, catalog)
    return found
