"""The schema migration: schema-1 people upgraded to schema 2 in SCAN batches, resumable and idempotent.

A batch's keys are found by SCAN, not known in advance: each batch is one WATCHed transaction over
its documents and the cursor, retried when the app edits one of them meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from config.activity import Actor
from config.redis import client, scan_beside
from config.store import pipelined, queue_event, transact
from school import keys
from school.documents import translate
from school.store.entities import queue_document


@dataclass
class MigrationStep:
    cursor: int
    scanned: int
    upgraded: int


def migration_cursor(entity: str) -> int:
    return int(client().hget(keys.migration(entity), "cursor") or 0)


def people_keys(entity: str, cursor: int, batch: int) -> tuple[int, list[tuple[int, str]]]:
    cursor, found = scan_beside(keys.migration(entity), cursor, match=keys.doc(entity, "*"), count=batch, _type="hash")
    ids = sorted({int(k.rsplit(":", 1)[1]) for k in found if k.rsplit(":", 1)[1].isdigit()})
    return cursor, [(pk, keys.doc(entity, pk)) for pk in ids]


def migrate_step(entity: str, cursor: int, batch: int, *, actor: Actor, dry_run: bool = False) -> MigrationStep:
    """Upgrade the schema-1 documents of one SCAN batch to schema 2; the next cursor is saved in the same
    transaction, so an interrupted run resumes, and upgraded documents are skipped, so a rerun is harmless."""
    next_cursor, found = people_keys(entity, cursor, batch)
    if dry_run:
        old = sum(1 for v in pipelined(found, lambda pipe, item: pipe.hget(item[1], "schema")) if v == "1")
        return MigrationStep(next_cursor, len(found), old)

    def work(tx):
        replies = pipelined(found, lambda pipe, item: pipe.hgetall(item[1]))
        tx.multi()
        upgraded = 0
        for (pk, _), fields in zip(found, replies):
            if fields and fields.get("schema") == "1":
                queue_document(tx, entity, pk, translate(fields), fields)
                upgraded += 1
        tx.hset(keys.migration(entity), mapping={"cursor": next_cursor})
        if next_cursor == 0:
            tx.delete(keys.migration(entity))
        if upgraded:
            label = f"{upgraded} {entity}s to schema 2"
            queue_event(tx, actor.event("migrated", keys.APP, entity, 0, label, gone=True), keys.EVENTS)
        return upgraded

    upgraded = transact(work, watch=[key for _, key in found] + [keys.migration(entity)])
    return MigrationStep(next_cursor, len(found), upgraded)
