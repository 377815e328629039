"""Tag or untag many products at once: one checked script a partition, every index kept with it.

Each product changed is saved as an edit of its tags alone would be: its tags field, its revision and last
update, its tag sets and the tag cloud's counts (``queue_indexes``), and an event. The script checks each
product is still at the revision read, so an edit saved meanwhile makes the whole batch read again rather than
overwrite it. With several partitions, each partition's products are one script (their keys share that
partition's slot).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from catalog import keys
from catalog.documents import MAX_TAGS
from catalog.store.batch import Batch
from catalog.store.core import APP, EditConflict, products_by_id, queue_indexes
from config.activity import Actor
from config.store import Busy, back_off, queue_event, watch_retries
from config.store.scripts import outcome


@dataclass(frozen=True)
class Retagged:
    """What a bulk tag change did; skipped: deleted meanwhile, or past the most tags a product may have."""

    changed: list[str]
    unchanged: int
    skipped: int


def retag(product_ids: list[int], *, add: list[str] = (), remove: list[str] = (), actor: Actor,
          at: float | None = None) -> Retagged:  # fmt: skip
    """Add the tags ``add`` to and take ``remove`` from every product of ``product_ids``."""
    for attempt in range(watch_retries()):
        found = products_by_id(product_ids)
        now = time.time() if at is None else at
        batches: dict[int, Batch] = {}
        changed, unchanged, full = [], 0, 0
        for pk, old in found.items():
            tags = [t for t in dict.fromkeys([*old.tags, *add]) if t not in remove]
            if tags == old.tags:
                unchanged += 1
                continue
            if len(tags) > MAX_TAGS:
                full += 1
                continue
            new = replace(old, tags=tags, rev=old.rev + 1, updated_at=now)
            batch = batches.setdefault(keys.partition_of(pk), Batch())
            key = keys.product(pk)
            batch.require_field(key, "rev", str(old.rev))
            fields = new.to_hash()
            batch.hset(key, mapping={name: fields[name] for name in ("tags", "rev", "updated_at")})
            queue_indexes(batch, pk, old, new)
            queue_event(batch, actor.event("updated", APP, "product", pk, old.name), keys.events_of(pk))
            changed.append(old.name)
        try:
            for batch in batches.values():
                outcome(batch.run())
        except EditConflict:  # an edit meanwhile: read again (a partition already written is read as it is now)
            back_off(attempt)
            continue
        return Retagged(changed, unchanged, len(product_ids) - len(found) + full)
    raise Busy(keys.product(product_ids[0]))
