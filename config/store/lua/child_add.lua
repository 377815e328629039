-- An add, with an id this process drew in a block (``config.store.ids``) and checked here (``s.drawn``,
-- the count that handed it out, against the counter), and the parent's ``s.label`` field answered
-- for the screen's message.
-- KEYS: parent, index, child, the id counter, then the score indexes and the event stream.
-- ARGV: the spec as JSON. Replies: {"missing", parent} | {"conflict"} (the id is not the counter's to
-- give yet, or a child holds it: nothing written) | {"ok", label}.
local s = cjson.decode(ARGV[1])
local parent, index, child, ids = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('HEXISTS', parent, s.count) == 0 then return {'missing', parent} end
if redis.call('EXISTS', child) == 1 or tonumber(redis.call('GET', ids) or '0') < tonumber(s.drawn) then
  return {'conflict'}
end
-- The write: the child's hash, its place in the set, the embed, the count and sum, the score indexes
-- and the event (``finish``).
redis.call('HSET', child, unpack(s.fields))
redis.call('ZADD', index, s.at, s.id)
local held, before = embedded(parent, s)
held[s.id] = s.copy
local count = redis.call('HINCRBY', parent, s.count, 1)
local total = 0
if s.sum ~= '' then total = redis.call('HINCRBY', parent, s.sum, s.amount) end
finish(s, parent, index, held, before, count, total)
return {'ok', redis.call('HGET', parent, s.label) or ''}
