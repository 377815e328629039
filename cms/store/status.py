"""Publish or unpublish many posts at once: one script, so the list never shows half a bulk change.

Each post changed is saved as a new version, as an edit of its status alone would be: its
previous version becomes a revision, its status, version and last save change, and it moves
between the status indexes and to the top of the updated and author indexes, with an event.
A post already in the status is left as it is; one deleted meanwhile, or whose author changed
since the store read it (its author index key was worked out from it), is named as skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.conf import settings

from cms import conf, keys
from cms.documents import OWN_FIELDS, SCHEMA
from cms.store.core import APP
from config.activity import Actor
from config.redis import client
from config.store.scripts import register, run_script

# KEYS: 1 updated index, 2 draft index, 3 published index, 4 events, then for each post: its hash,
# its revisions, its author's index (or the updated index, for an author with none).
# ARGV: 1 new status, 2 at, 3 saved by, 4 comment, 5 revisions kept (0: all), 6 own fields (JSON),
# 7 events kept, 8 schema, then for each post: its id, the author read, "1" if that author has an
# index, its event (JSON list; its label becomes the title).
# Reply: for each post, its id, what happened ("changed", "unchanged", "missing", "moved") and its title.
SET_STATUS = register(r"""
local status, at, by = ARGV[1], ARGV[2], ARGV[3]
local own = cjson.decode(ARGV[6])
local cap = tonumber(ARGV[5])
local index = {draft = KEYS[2], published = KEYS[3]}
local reply = {}
local posts = (#KEYS - 4) / 3
for n = 0, posts - 1 do
  local post, revisions, by_author = KEYS[5 + 3 * n], KEYS[6 + 3 * n], KEYS[7 + 3 * n]
  local id, author, indexed, event = ARGV[9 + 4 * n], ARGV[10 + 4 * n], ARGV[11 + 4 * n], ARGV[12 + 4 * n]
  local held = redis.call('HMGET', post, unpack(own))
  local current = {}
  for i, name in ipairs(own) do
    if held[i] then current[name] = held[i] end
  end
  local title = current['title'] or ''
  local what = 'changed'
  if not current['version'] then what = 'missing'
  elseif (current['author'] or '') ~= author then what = 'moved'
  elseif (current['status'] or 'draft') == status then what = 'unchanged' end
  if what == 'changed' then
    local version = tonumber(current['version'])
    redis.call('ZADD', revisions, version, cjson.encode(current))
    if cap > 0 then redis.call('ZREMRANGEBYRANK', revisions, 0, -(cap + 1)) end
    redis.call('HSET', post, 'status', status, 'version', tostring(version + 1), 'last_saved_by', by,
               'updated_at', at, 'comment', ARGV[4], 'changed', 'status', 'schema', ARGV[8])
    redis.call('ZADD', KEYS[1], at, id)
    local old = index[current['status'] or 'draft']
    if old then redis.call('ZREM', old, id) end
    redis.call('ZADD', index[status], at, id)
    if indexed == '1' then redis.call('ZADD', by_author, at, id) end
    local fields = cjson.decode(event)
    for i = 1, #fields, 2 do
      if fields[i] == 'label' then fields[i + 1] = title end
    end
    redis.call('XADD', KEYS[4], 'MAXLEN', tonumber(ARGV[7]), '*', unpack(fields))
  end
  reply[#reply + 1] = id
  reply[#reply + 1] = what
  reply[#reply + 1] = title
end
return reply
""")


@dataclass(frozen=True)
class StatusChange:
    """What a bulk status change did: the titles changed, and the titles left as they were or skipped."""

    changed: list[str]
    unchanged: list[str]
    skipped: int  # deleted meanwhile, or their author changed since they were read


def set_status(post_ids: list[int], status: str, *, actor: Actor, at: float) -> StatusChange:
    """Set ``status`` on every post of ``post_ids``: two round trips (each post's author, whose index
    key the script needs, then the one script that checks and writes them all)."""
    if status not in keys.STATUSES:
        raise ValueError(f"unknown status {status!r}")
    pipe = client().pipeline(transaction=False)
    for pk in post_ids:
        pipe.hget(keys.post(pk), "author")
    authors = pipe.execute()
    script_keys = [keys.by_updated(), keys.by_status("draft"), keys.by_status("published"), keys.EVENTS]
    verb = "published" if status == "published" else "unpublished"
    args = [
        status, repr(at), actor.name, f"Bulk: {verb}", conf.revisions_kept(), json.dumps(OWN_FIELDS),
        settings.EVENTS_MAXLEN, SCHEMA,
    ]  # fmt: skip
    for pk, author in zip(post_ids, authors):
        author = author or ""
        indexed = bool(keys.AUTHOR_RE.match(author))
        script_keys += [keys.post(pk), keys.revisions(pk), keys.by_author(author) if indexed else keys.by_updated()]
        event = actor.event("updated", APP, "post", pk, "")
        fields = json.dumps([part for pair in event.fields().items() for part in pair], ensure_ascii=False)
        args += [pk, author, "1" if indexed else "0", fields]
    reply = run_script(SET_STATUS, script_keys, args)
    changed, unchanged, skipped = [], [], 0
    for i in range(0, len(reply), 3):
        what, title = reply[i + 1], reply[i + 2]
        if what == "changed":
            changed.append(title)
        elif what == "unchanged":
            unchanged.append(title)
        else:
            skipped += 1
    return StatusChange(changed, unchanged, skipped)
