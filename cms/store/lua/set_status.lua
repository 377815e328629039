-- Publish or unpublish many posts at once.
-- KEYS: 1 updated index, 2 draft index, 3 published index, 4 events, then for each post: its hash,
-- its revisions, its author's index (or the updated index, for an author with none).
-- ARGV: 1 new status, 2 at, 3 saved by, 4 comment, 5 revisions kept (0: all), 6 own fields (JSON),
-- 7 events kept, 8 schema, then for each post: its id, the author read, "1" if that author has an
-- index, its event (JSON list; its label becomes the title).
-- Reply: for each post, its id, what happened ("changed", "unchanged", "missing", "moved") and its title.
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
