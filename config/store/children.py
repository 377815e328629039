"""Referenced children with a partial embed and an aggregate on the parent.

One machinery for the e-book's one-to-many patterns, shared by the catalog's reviews and the CMS's comments:

- Referenced (unbounded one-to-many): each child is a hash of its own (``catalog:review:<id>``), and a
  sorted set per parent scored by time (``catalog:product:<id>:reviews``) is the source of truth for which
  children a parent has, newest last.
- Partial embed: the parent hash holds a JSON copy of its N newest children (``recent_reviews``), so the
  parent's page shows them without reading a single child hash.
- Aggregate: the parent hash holds the count of its children and, optionally, the sum of one numeric
  field (``num_reviews``, ``sum_ratings``), so averages and sorts need no scan. ``scores`` names sorted
  sets that score the parent by its aggregate (the catalog's sort by rating and by review count).

Every add and delete is one Lua script (``lua/child_*.lua``) writing the child, the set, the parent's
embed and aggregate, the score indexes and the event atomically. An add is one round trip: its id comes
from this process's block (``config.store.ids``). A delete reads the child and the newest N+1 ids first
(the embed's refill needs their keys), then runs a script that refuses, and is retried, if those ids
changed meanwhile. "Newest" is ZREVRANGE's order, so the embed can be checked against the set exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import NamedTuple

from django.conf import settings

from config.activity import Event
from config.redis import client
from config.store import Busy, EditConflict, NotFound, back_off, pipelined, watch_retries
from config.store.ids import IdBlock
from config.store.scripts import lua, outcome, register, run_script
from config.store.sorting import queue_sort

__all__ = ["Child", "ChildCollection", "NotFound"]

ADD = register(lua(__file__, "children", "child_add"))
DELETE = register(lua(__file__, "children", "child_delete"))
_TIME_THEN_ID = itemgetter(0, 1)  # a bulk row's (time, id): the order ZREVRANGE reverses


class Child(NamedTuple):
    """A child for ``queue_bulk`` (its id already drawn). A tuple: cheaper to build than a dataclass."""

    id: int
    fields: dict[str, str]
    at: float


@dataclass(frozen=True)
class ChildCollection:
    parent_key: Callable[[int], str]
    child_key: Callable[[int | str], str]  # child_key("*") is the pattern for SORT ... GET (see child_glob)
    index_key: Callable[[int], str]
    ids_key: Callable[[int], str]  # the id counter of a parent's children (by the parent's id)
    parent_field: str  # child field holding the parent id
    time_field: str  # child field holding the score, epoch seconds
    embed_field: str  # parent field holding the JSON copy of the newest children
    embed_fields: tuple[str, ...]  # child fields copied into the embed (with "id")
    count_field: str
    events_key: Callable[[int], str]  # the activity stream of a parent's slot group (config.keys.events)
    sum_field: str = ""  # parent field holding the sum of ``summed`` over children
    summed: str = ""  # child field summed (an integer)
    embed_size: int = 3
    page_fields: tuple[str, ...] = field(default=())  # fields read for a page; embed_fields when empty
    # Sorted sets scoring each parent by its aggregate: (the key, by the parent's id; "count" or "average").
    scores: tuple[tuple[Callable[[int], str], str], ...] = ()
    # A parent's children as SORT ... GET joins them (``*`` is the id), where their keys' other
    # segments depend on the parent (a partition's tag); child_key("*") when None.
    child_glob: Callable[[int], str] | None = None

    def __post_init__(self):
        if self.time_field not in self.embed_fields:
            raise ValueError("embed_fields must include time_field: the embed is ordered by it")
        kinds = {kind for _, kind in self.scores}
        if kinds - {"count", "average"} or ("average" in kinds and not self.sum_field):
            raise ValueError("a score is the count, or the average of the summed field")

    def initial_fields(self) -> dict[str, str]:
        """Fields a parent is created with: its count tells the machinery that it exists."""
        return self._derived([], 0, 0)

    # --- reads ------------------------------------------------------------------

    def embedded(self, parent: dict[str, str]) -> list[dict[str, str]]:
        """The newest children as copied into the parent hash."""
        raw = parent.get(self.embed_field) or "[]"
        return json.loads(raw)

    def queue_page(self, pipe, parent_id: int, offset: int, limit: int) -> None:
        """Queue the reads of one page, newest first, and its total: SORT ... BY nosort ... GET, as a script."""
        fields = self.page_fields or self.embed_fields
        pattern = self.child_glob(parent_id) if self.child_glob else self.child_key("*")
        gets = ["#", *(f"{pattern}->{name}" for name in fields)]
        pipe.zcard(self.index_key(parent_id))
        queue_sort(pipe, self.index_key(parent_id), start=offset, num=limit, by_nosort=True, get=gets, desc=True)

    def page_from(self, replies: Iterable) -> tuple[list[dict[str, str]], int]:
        """Decode the two replies that ``queue_page`` queued."""
        total, flat = replies
        fields = ("id", *(self.page_fields or self.embed_fields))
        width = len(fields)
        rows = [dict(zip(fields, flat[i : i + width])) for i in range(0, len(flat), width)]
        # A child hash that is gone reads as all None: skip it rather than show a blank row.
        return [row for row in rows if any(v is not None for k, v in row.items() if k != "id")], total

    def page(self, parent_id: int, offset: int, limit: int) -> tuple[list[dict[str, str]], int]:
        pipe = client().pipeline(transaction=False)
        self.queue_page(pipe, parent_id, offset, limit)
        return self.page_from(pipe.execute())

    # --- writes -----------------------------------------------------------------

    def add(
        self,
        block: IdBlock,
        parent_id: int,
        fields: dict[str, str],
        at: float,
        event: Callable[[int], Event],
        label: str,
    ) -> tuple[int, str]:
        """Add a child whose id comes from ``block``; returns its id and the parent's ``label`` field. An id
        refused (the data was reset, or a child holds it) draws the block again, once, then Busy."""
        parent_key = self.parent_key(parent_id)
        stored = {**fields, self.parent_field: str(parent_id), self.time_field: repr(at)}
        for _ in range(2):
            child_id = block.take()
            spec = {
                "id": str(child_id),
                "at": repr(at),
                "amount": str(int(stored[self.summed])) if self.summed else "0",
                "fields": [part for pair in stored.items() for part in pair],
                "copy": self._copy(child_id, stored),
                "label": label,
                "drawn": str(block.count_of(child_id)),
            }
            keys = [parent_key, self.index_key(parent_id), self.child_key(child_id), self.ids_key(parent_id)]
            try:
                (parent_label,) = self._run(ADD, keys, spec, parent_id, event(child_id))
                return child_id, parent_label
            except NotFound:
                block.put_back(child_id)
                raise
            except EditConflict:
                block.drop()  # the data was reset, or another writer holds the id
        raise Busy(parent_key)

    def delete(
        self,
        child_id: int,
        event: Event | Callable[[dict[str, str]], Event] | None = None,
        expected_parent: int | None = None,
    ) -> dict[str, str]:
        """Delete a child, refilling the parent's embed; returns the child's fields. ``event``: an Event,
        or a function of the child's fields. When a concurrent write changed the newest ids read, it reads
        again (``STORE_WATCH_RETRIES``, then Busy). With ``expected_parent``, a child of another parent is
        NotFound: a URL naming both ids must not reach a child through the wrong parent."""
        return self.delete_named(child_id, event, expected_parent)[1]

    def delete_named(
        self,
        child_id: int,
        event: Event | Callable[[dict[str, str]], Event] | None = None,
        expected_parent: int | None = None,
        label: str = "",
    ) -> tuple[str | None, dict[str, str]]:
        """``delete``, with the parent's ``label`` field read beside the child (given ``expected_parent``)."""
        child_key = self.child_key(child_id)
        for attempt in range(watch_retries()):
            child, top, named = self._read_for_delete(child_key, expected_parent, label)
            parent_id = int(child[self.parent_field])
            spec = {
                "id": str(child_id),
                "parent_field": self.parent_field,
                "top": top,
                "summed": self.summed,
            }
            keys = [child_key, self.parent_key(parent_id), self.index_key(parent_id)]
            logged = event(child) if callable(event) else event
            try:
                self._run(DELETE, keys, spec, parent_id, logged, extra=[self.child_key(i) for i in top])
                return named, child
            except EditConflict:  # the newest ids changed since they were read: read them again
                pass
            back_off(attempt)
        raise Busy(child_key)

    def queue_bulk(self, pipe, parent_id: int, children: Sequence[Child]) -> dict[str, str]:
        """Queue a new parent's children (ids drawn) on ``pipe``; returns the embed and aggregate fields the
        caller writes with the parent, exactly what one ``add`` per child would have left."""
        parent, parent_field, time_field, summed = str(parent_id), self.parent_field, self.time_field, self.summed
        stored_all = [{**child.fields, parent_field: parent, time_field: repr(child.at)} for child in children]
        hashes = list(zip(map(self.child_key, [child.id for child in children]), stored_all))
        rows = [(child.at, str(child.id), stored) for child, stored in zip(children, stored_all)]
        total = sum(int(stored[summed]) for stored in stored_all) if summed else 0
        for key, stored in hashes:
            pipe.hset(key, mapping=stored)
        if rows:
            pipe.zadd(self.index_key(parent_id), {member: stored[time_field] for _, member, stored in rows})
        # Only the newest are copied: chosen as ``newest`` orders the copies (a time's repr reads back the same).
        rows.sort(key=_TIME_THEN_ID, reverse=True)
        return self._derived(
            [self._copy(member, stored) for _, member, stored in rows[: self.embed_size]], len(rows), total
        )

    def queue_scores(self, pipe, parent_id: int, count: int, total: int) -> None:
        """Queue the score indexes for a parent's aggregate (creation, bulk writes, repairs)."""
        for key, kind in self.scores:
            # As the scripts score it: the average rounded to 6 decimals, 0 with no children.
            average = round(total / count, 6) if count else 0.0
            pipe.zadd(key(parent_id), {str(parent_id): average if kind == "average" else count})

    def queue_delete_all(self, pipe, parent_id: int, child_ids: Iterable[str]) -> None:
        """Queue the removal of every child of a parent (the parent's own delete does the rest)."""
        ids = list(child_ids)
        for start in range(0, len(ids), 500):
            pipe.unlink(*(self.child_key(i) for i in ids[start : start + 500]))
        pipe.unlink(self.index_key(parent_id))
        for key, _ in self.scores:
            pipe.zrem(key(parent_id), str(parent_id))

    def expected_embed(self, parent_id: int) -> list[dict[str, str]]:
        """What the embed must hold, rebuilt from the set and the child hashes (integrity, repair)."""
        return self.expected_embeds([parent_id])[parent_id]

    def expected_embeds(self, parent_ids: list[int]) -> dict[int, list[dict[str, str]]]:
        """``expected_embed`` for many parents in two round trips, for checks over a whole app."""
        pipe = client().pipeline(transaction=False)
        for parent_id in parent_ids:
            pipe.zrevrange(self.index_key(parent_id), 0, self.embed_size - 1)
        newest = pipe.execute()
        copies = iter(self._copies(sum(newest, [])))
        return {parent_id: [next(copies) for _ in ids] for parent_id, ids in zip(parent_ids, newest)}

    def repair(self, parent_id: int) -> None:
        """Rebuild a parent's embed, aggregate and score indexes from its children, in one transaction."""
        ids = client().zrange(self.index_key(parent_id), 0, -1)
        total = sum(self._amounts(ids))
        pipe = client().pipeline(transaction=True)
        pipe.hset(self.parent_key(parent_id), mapping=self._derived(self.expected_embed(parent_id), len(ids), total))
        self.queue_scores(pipe, parent_id, len(ids), total)
        pipe.execute()

    def aggregate(self, parent_id: int) -> tuple[int, int]:
        """(count, sum) recomputed from the children, for the integrity check."""
        return self.aggregates([parent_id])[parent_id]

    def aggregates(self, parent_ids: list[int]) -> dict[int, tuple[int, int]]:
        """``aggregate`` for many parents in two round trips."""
        pipe = client().pipeline(transaction=False)
        for parent_id in parent_ids:
            pipe.zrange(self.index_key(parent_id), 0, -1)
        children = pipe.execute()
        amounts = iter(self._amounts(sum(children, [])))
        return {
            parent_id: (len(ids), sum(next(amounts) for _ in ids) if self.summed else 0)
            for parent_id, ids in zip(parent_ids, children)
        }

    def newest(self, copies: list[dict[str, str]]) -> list[dict[str, str]]:
        """The embed for these child copies ({"id", *embed_fields}), as ``add`` would leave it."""
        # ZREVRANGE order: score descending, then member descending (as bytes).
        ordered = sorted(copies, key=lambda item: (float(item[self.time_field]), item["id"]), reverse=True)
        return ordered[: self.embed_size]

    # --- internals --------------------------------------------------------------

    def _derived(self, copies: list[dict[str, str]], count: int, total: int) -> dict[str, str]:
        """The parent's embed and aggregate fields."""
        derived = {self.embed_field: json.dumps(copies), self.count_field: str(count)}
        if self.sum_field:
            derived[self.sum_field] = str(total)
        return derived

    def _copy(self, child_id: int | str, stored: dict[str, str]) -> dict[str, str]:
        return {"id": str(child_id), **{name: stored.get(name, "") for name in self.embed_fields}}

    def _run(self, source: str, keys: list[str], spec: dict, parent_id: int, event: Event | None, extra=()) -> list:
        """Run an add or delete script, with the spec's shared part, the score keys and the event."""
        scores_at = len(keys) + 1
        keys = [*keys, *(key(parent_id) for key, _ in self.scores)]
        events_at = len(keys) + 1
        if event:
            keys.append(self.events_key(parent_id))
        spec = {
            **spec,
            "parent_id": str(parent_id),
            "size": str(self.embed_size),
            "embed": self.embed_field,
            "copied": list(self.embed_fields),
            "count": self.count_field,
            "sum": self.sum_field,
            "scores": [kind for _, kind in self.scores],
            "scores_at": scores_at,
            "events_at": events_at,
            "maxlen": str(settings.EVENTS_MAXLEN),
            "event": [part for pair in event.fields().items() for part in pair] if event else [],
            "top_at": len(keys) + 1,
        }
        return outcome(run_script(source, [*keys, *extra], [json.dumps(spec)]))

    def _read_for_delete(
        self, child_key: str, expected_parent: int | None, label: str = ""
    ) -> tuple[dict[str, str], list[str], str | None]:
        """The child's fields, its parent's newest N+1 ids and (with ``expected_parent``) ``label`` field."""
        named = label and expected_parent is not None
        pipe = client().pipeline(transaction=False)
        if named:
            pipe.hget(self.parent_key(expected_parent), label)
        pipe.hgetall(child_key)
        if expected_parent is not None:
            pipe.zrevrange(self.index_key(expected_parent), 0, self.embed_size)
        replies = pipe.execute()
        held = replies.pop(0) if named else None
        child, *rest = replies
        if not child or (expected_parent is not None and child.get(self.parent_field) != str(expected_parent)):
            raise NotFound(child_key)
        if named and held is None:
            raise NotFound(child_key)
        if expected_parent is None:
            rest = [client().zrevrange(self.index_key(int(child[self.parent_field])), 0, self.embed_size)]
        return child, rest[0], held

    def _amounts(self, ids: list[str]) -> list[int]:
        if not self.summed:
            return []
        return [int(v or 0) for v in pipelined(ids, lambda p, i: p.hget(self.child_key(i), self.summed))]

    def _copies(self, ids: list[str]) -> list[dict[str, str]]:
        values = pipelined(ids, lambda pipe, i: pipe.hmget(self.child_key(i), self.embed_fields))
        return [{"id": i, **dict(zip(self.embed_fields, (v or "" for v in held)))} for i, held in zip(ids, values)]


def average_score(count: int, total: int) -> float:
    """The average as the scripts score it: rounded to 6 decimals, 0 with no children."""
    return round(total / count, 6) if count else 0.0
