-- Shared by a child's add and delete (a library, named first): the new embed from the set's newest ids,
-- the aggregate's score indexes, the event. ``held`` maps id -> copy. Each script gets every key it
-- touches in KEYS and its other inputs as one JSON document in ARGV[1] (numbers travel as strings, so
-- a score is never rounded on the way); none builds a key name.
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
