"""Referenced children with a partial embed and an aggregate on the parent.

One machinery for the e-book's one-to-many patterns, shared by the catalog's
reviews and the CMS's comments:

- Referenced (unbounded one-to-many): each child is a hash of its own
  (``catalog:review:<id>``), and a sorted set per parent scored by time
  (``catalog:product:<id>:reviews``) is the source of truth for which children
  a parent has, newest last.
- Partial embed: the parent hash holds a JSON copy of its N newest children
  (``recent_reviews``), so the parent's page shows them without reading a
  single child hash.
- Aggregate: the parent hash holds the count of its children and, optionally,
  the sum of one numeric field (``num_reviews``, ``sum_ratings``), so averages
  and sorts need no scan.

Every add and delete changes the child, the sorted set and the parent's
derived fields in one MULTI/EXEC. Because every write of a collection also
writes the parent hash, WATCHing the parent (and the set) is enough to make a
concurrent add or delete retry instead of leaving the embed or the counters
wrong. "Newest" is the sorted set's own reverse order: score, then member, as
ZREVRANGE returns them, so the embed can be checked against the set exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from config.activity import Event
from config.redis import client
from config.store import Conflict, NotFound, pipelined, queue_event, transact

__all__ = ["ChildCollection", "Conflict", "NotFound"]

WATCH_RETRIES = 50

# on_change(pipe, parent_id, count, total): queue the caller's own derived writes
# (sort indexes, say) on the same transaction, from the parent's new aggregate.
OnChange = Callable[[object, int, int, int], None]


@dataclass(frozen=True)
class ChildCollection:
    parent_key: Callable[[int], str]
    child_key: Callable[[int | str], str]  # child_key("*") is the pattern for SORT ... GET
    index_key: Callable[[int], str]
    ids_key: str
    parent_field: str  # child field holding the parent id
    time_field: str  # child field holding the score, epoch seconds
    embed_field: str  # parent field holding the JSON copy of the newest children
    embed_fields: tuple[str, ...]  # child fields copied into the embed (with "id")
    count_field: str
    sum_field: str = ""  # parent field holding the sum of ``summed`` over children
    summed: str = ""  # child field summed (an integer)
    embed_size: int = 3
    page_fields: tuple[str, ...] = field(default=())  # fields read for a page; embed_fields when empty

    def __post_init__(self):
        if self.time_field not in self.embed_fields:
            raise ValueError("embed_fields must include time_field: the embed is ordered by it")

    def initial_fields(self) -> dict[str, str]:
        """Fields a parent is created with: its count tells the machinery that it exists."""
        fields = {self.embed_field: "[]", self.count_field: "0"}
        if self.sum_field:
            fields[self.sum_field] = "0"
        return fields

    # --- reads ------------------------------------------------------------------

    def embedded(self, parent: dict[str, str]) -> list[dict[str, str]]:
        """The newest children as copied into the parent hash."""
        raw = parent.get(self.embed_field) or "[]"
        return json.loads(raw)

    def queue_page(self, pipe, parent_id: int, offset: int, limit: int) -> None:
        """Queue the reads of one page, newest first, and its total: two commands, no round trip.

        SORT ... BY nosort on a sorted set keeps the set's order and applies
        LIMIT as a range, and GET child:*->field joins each id to its hash
        fields inside Redis, so a page costs one round trip whatever its size.
        """
        fields = self.page_fields or self.embed_fields
        pattern = self.child_key("*")
        gets = ["#", *(f"{pattern}->{name}" for name in fields)]
        pipe.zcard(self.index_key(parent_id))
        pipe.sort(self.index_key(parent_id), start=offset, num=limit, by="nosort", get=gets, desc=True)

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
        parent_id: int,
        fields: dict[str, str],
        at: float,
        event: Event | None = None,
        on_change: OnChange | None = None,
    ) -> int:
        """Add a child to a parent; returns its id. Raises NotFound for a missing parent.

        The id is taken only once the parent is known to exist, so a missing
        parent leaves the id counter untouched.
        """
        stored = {**fields, self.parent_field: str(parent_id), self.time_field: repr(at)}
        parent_key, index_key = self.parent_key(parent_id), self.index_key(parent_id)
        amount = int(stored[self.summed]) if self.summed else 0
        child_id = 0

        def write(pipe, parent):
            nonlocal child_id
            child_id = child_id or pipe.incr(self.ids_key)  # immediate: the pipe is still watching
            copy = {"id": str(child_id), **{name: stored.get(name, "") for name in self.embed_fields}}
            embed = self._newest([*self.embedded(parent), copy])
            count = int(parent.get(self.count_field) or 0) + 1
            total = int(parent.get(self.sum_field) or 0) + amount if self.sum_field else 0
            pipe.multi()
            pipe.hset(self.child_key(child_id), mapping=stored)
            pipe.zadd(index_key, {str(child_id): at})
            self._queue_parent(pipe, parent_key, embed, +1, amount)
            if on_change:
                on_change(pipe, parent_id, count, total)
            if event:
                queue_event(pipe, _with_id(event, child_id))

        self._transact(parent_key, index_key, write)
        return child_id

    def delete(
        self,
        child_id: int,
        event: Event | None = None,
        on_change: OnChange | None = None,
        expected_parent: int | None = None,
    ) -> dict[str, str]:
        """Delete a child, refilling the parent's embed from the set; returns the child's fields.

        With ``expected_parent``, a child of another parent is NotFound (a URL
        naming both ids must not reach a child through the wrong parent).
        """
        child_key = self.child_key(child_id)

        def work(pipe) -> dict[str, str]:
            child = pipe.hgetall(child_key)
            if not child or (expected_parent is not None and child.get(self.parent_field) != str(expected_parent)):
                raise NotFound(child_key)
            parent_id = int(child[self.parent_field])
            parent_key, index_key = self.parent_key(parent_id), self.index_key(parent_id)
            pipe.watch(parent_key, index_key)
            parent = self._read_parent(pipe, parent_key)
            embed = self.embedded(parent)
            if any(item["id"] == str(child_id) for item in embed):
                embed = self._refill(index_key, exclude=str(child_id))
            amount = int(child.get(self.summed) or 0) if self.summed else 0
            count = int(parent.get(self.count_field) or 0) - 1
            total = int(parent.get(self.sum_field) or 0) - amount if self.sum_field else 0
            pipe.multi()
            pipe.delete(child_key)
            pipe.zrem(index_key, str(child_id))
            self._queue_parent(pipe, parent_key, embed, -1, -amount)
            if on_change:
                on_change(pipe, parent_id, count, total)
            if event:
                queue_event(pipe, event)
            return child

        return transact(work, watch=(child_key,), retries=WATCH_RETRIES)

    def queue_delete_all(self, pipe, parent_id: int, child_ids: Iterable[str]) -> None:
        """Queue the removal of every child of a parent (the parent's own delete does the rest)."""
        ids = list(child_ids)
        for start in range(0, len(ids), 500):
            pipe.unlink(*(self.child_key(i) for i in ids[start : start + 500]))
        pipe.unlink(self.index_key(parent_id))

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
        """Rebuild a parent's embed and aggregate from its children, in one transaction."""
        index_key = self.index_key(parent_id)
        ids = client().zrange(index_key, 0, -1)
        amounts = self._amounts(ids)
        pipe = client().pipeline(transaction=True)
        mapping = {
            self.embed_field: json.dumps(self.expected_embed(parent_id)),
            self.count_field: str(len(ids)),
        }
        if self.sum_field:
            mapping[self.sum_field] = str(sum(amounts))
        pipe.hset(self.parent_key(parent_id), mapping=mapping)
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

    # --- internals --------------------------------------------------------------

    def _amounts(self, ids: list[str]) -> list[int]:
        if not self.summed:
            return []
        return [int(v or 0) for v in pipelined(ids, lambda p, i: p.hget(self.child_key(i), self.summed))]

    def newest(self, copies: list[dict[str, str]]) -> list[dict[str, str]]:
        """The embed for these child copies ({"id", *embed_fields}): for seeders and importers that
        write a parent's children in bulk and must leave the embed exactly as ``add`` would."""
        return self._newest(copies)

    def _newest(self, items: list[dict[str, str]]) -> list[dict[str, str]]:
        # ZREVRANGE order: score descending, then member descending (as bytes).
        ordered = sorted(items, key=lambda item: (float(item[self.time_field]), item["id"]), reverse=True)
        return ordered[: self.embed_size]

    def _refill(self, index_key: str, exclude: str) -> list[dict[str, str]]:
        ids = [i for i in client().zrevrange(index_key, 0, self.embed_size) if i != exclude][: self.embed_size]
        return self._copies(ids)

    def _copies(self, ids: list[str]) -> list[dict[str, str]]:
        """The embed copies of these children, read in one pipeline."""
        values = pipelined(ids, lambda pipe, i: pipe.hmget(self.child_key(i), self.embed_fields))
        return [{"id": i, **dict(zip(self.embed_fields, (v or "" for v in held)))} for i, held in zip(ids, values)]

    def _read_parent(self, pipe, parent_key: str) -> dict[str, str]:
        names = [self.embed_field, self.count_field] + ([self.sum_field] if self.sum_field else [])
        values = dict(zip(names, pipe.hmget(parent_key, names)))
        if values[self.count_field] is None:  # see initial_fields()
            raise NotFound(parent_key)
        return {name: value for name, value in values.items() if value is not None}

    def _queue_parent(self, pipe, parent_key: str, embed: list[dict[str, str]], step: int, amount: int) -> None:
        pipe.hset(parent_key, self.embed_field, json.dumps(embed))
        pipe.hincrby(parent_key, self.count_field, step)
        if self.sum_field:
            pipe.hincrby(parent_key, self.sum_field, amount)

    def _transact(self, parent_key: str, index_key: str, write) -> None:
        transact(
            lambda pipe: write(pipe, self._read_parent(pipe, parent_key)),
            watch=(parent_key, index_key),
            retries=WATCH_RETRIES,
        )


def _with_id(event: Event, object_id: int) -> Event:
    """The event of a child that had no id until now."""
    if event.object_id:
        return event
    return Event(**{**event.fields(), "object_id": str(object_id)})
