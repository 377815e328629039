"""The Lua scripts of the parent/child machinery (``children.py``).

Each script gets every key it touches in KEYS and its other inputs as one
JSON document in ARGV[1] (numbers travel as strings, so a score is never
rounded on the way); none builds a key name.
"""

from __future__ import annotations

from config.store.scripts import register

# Shared by add and delete: the new embed from the set's newest ids, the
# aggregate's score indexes, the event. ``held`` maps id -> copy.
FINISH = """
local function encode(items, names)
  if #items == 0 then return '[]' end
  local parts = {}
  for _, item in ipairs(items) do
    local fields = {'"id": ' .. cjson.encode(item.id)}
    for _, name in ipairs(names) do
      fields[#fields + 1] = cjson.encode(name) .. ': ' .. cjson.encode(item[name] or '')
    end
    parts[#parts + 1] = '{' .. table.concat(fields, ', ') .. '}'
  end
  return '[' .. table.concat(parts, ', ') .. ']'
end
local function finish(s, parent, index, held, before, count, total)
  local newest, same = {}, true
  for i, id in ipairs(redis.call('ZREVRANGE', index, 0, tonumber(s.size) - 1)) do
    if held[id] then newest[#newest + 1] = held[id] end
    if before[i] ~= id then same = false end
  end
  if not same or #newest ~= #before then redis.call('HSET', parent, s.embed, encode(newest, s.copied)) end
  for i, kind in ipairs(s.scores) do
    local value = count
    if kind == 'average' then value = count > 0 and string.format('%.6f', total / count) or 0 end
    redis.call('ZADD', KEYS[s.scores_at + i - 1], value, s.parent_id)
  end
  if #s.event > 0 then redis.call('XADD', KEYS[s.events_at], 'MAXLEN', s.maxlen, '*', unpack(s.event)) end
end
local function embedded(parent, s)
  local held, before = {}, {}
  for _, item in ipairs(cjson.decode(redis.call('HGET', parent, s.embed) or '[]')) do
    held[item.id] = item
    before[#before + 1] = item.id
  end
  return held, before
end
"""

# The write of an add, once its checks passed: the child's hash, its place in the set, the embed,
# the count and sum, the score indexes and the event (``finish``).
_WRITE_CHILD = """
redis.call('HSET', child, unpack(s.fields))
redis.call('ZADD', index, s.at, s.id)
local held, before = embedded(parent, s)
held[s.id] = s.copy
local count = redis.call('HINCRBY', parent, s.count, 1)
local total = 0
if s.sum ~= '' then total = redis.call('HINCRBY', parent, s.sum, s.amount) end
finish(s, parent, index, held, before, count, total)
"""

# An add, with an id this process drew in a block (``config.store.ids``) and checked here (``s.drawn``,
# the count that handed it out, against the counter), and the parent's ``s.label`` field answered
# for the screen's message.
# KEYS: parent, index, child, the id counter, then the score indexes and the event stream.
# ARGV: the spec as JSON. Replies: {"missing", parent} | {"conflict"} (the id is not the counter's to give
# yet, or a child holds it: nothing written) | {"ok", label}.
ADD = register(
    FINISH
    + """
local s = cjson.decode(ARGV[1])
local parent, index, child, ids = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('HEXISTS', parent, s.count) == 0 then return {'missing', parent} end
if redis.call('EXISTS', child) == 1 or tonumber(redis.call('GET', ids) or '0') < tonumber(s.drawn) then
  return {'conflict'}
end
"""
    + _WRITE_CHILD
    + """
return {'ok', redis.call('HGET', parent, s.label) or ''}
"""
)

# KEYS: child, parent, index, then the score indexes, the event stream and the
# child keys of ``s.top`` (the newest N+1 ids read before). ARGV: the spec as JSON.
DELETE = register(
    FINISH
    + """
local s = cjson.decode(ARGV[1])
local child, parent, index = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HGET', child, s.parent_field) ~= s.parent_id or redis.call('HEXISTS', parent, s.count) == 0 then
  return {'missing', child}
end
local top = redis.call('ZREVRANGE', index, 0, tonumber(s.size))
if #top ~= #s.top then return {'conflict'} end
for i = 1, #top do if top[i] ~= s.top[i] then return {'conflict'} end end
local amount = 0
if s.summed ~= '' then amount = tonumber(redis.call('HGET', child, s.summed) or '0') or 0 end
redis.call('UNLINK', child)
redis.call('ZREM', index, s.id)
local held, before = embedded(parent, s)
for j, id in ipairs(s.top) do
  if not held[id] and id ~= s.id then
    local values = redis.call('HMGET', KEYS[s.top_at + j - 1], unpack(s.copied))
    local item = {id = id}
    for k, name in ipairs(s.copied) do item[name] = values[k] or '' end
    held[id] = item
  end
end
local count = redis.call('HINCRBY', parent, s.count, -1)
local total = 0
if s.sum ~= '' then total = redis.call('HINCRBY', parent, s.sum, -amount) end
finish(s, parent, index, held, before, count, total)
return {'ok', count, total}
"""
)
