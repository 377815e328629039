-- A delete, refused ({'conflict'}) when the parent's newest N+1 ids changed since they were read.
-- KEYS: child, parent, index, then the score indexes, the event stream and the
-- child keys of ``s.top`` (the newest N+1 ids read before). ARGV: the spec as JSON.
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
