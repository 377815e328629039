-- Save an edit made on a version, or restore a revision as a new version.
-- KEYS: 1 post, 2 revisions, 3 updated index, 4 title index, 5 draft index,
--       6 published index, 7 old author's index, 8 new author's index, 9 events.
-- ARGV: 1 mode ("save" | "restore"), 2 base version | revision number,
--       3 expected current author, 4 expected new author, 5 old author indexed ("1"/"0"),
--       6 new author indexed, 7 at, 8 saved by, 9 comment, 10 revisions kept (0: all),
--       11 new title member ("" for a restore: the revision's own), 12 content (JSON),
--       13 the post's own fields (JSON list), 14 event (JSON list of name, value; its label
--       becomes the saved title),
--       15 events kept, 16 post id, 17 revisions shown on a conflict, 18 schema,
--       19 expected current title, 20 expected new title, 21 how many of KEYS 11.. the post leaves,
--       22 the old author's member of the authors index, 23 the new author's.
-- KEYS 10: the authors index. KEYS 11..: the title piece sets the post leaves (SREM), then those it
--       joins (SADD), computed from the two expected titles; the script checks both hold, else writes nothing.
-- Replies (config/store/scripts.py): {"missing", what} | {"conflict", "version", current JSON, base snapshot
--        or "", newer...} | {"conflict", "keys", current author, new author, new title, current title} (the
--        guess of the keys was wrong: call again) | {"ok"} (nothing changed) | {"ok", new JSON}.
local post, revisions = KEYS[1], KEYS[2]
local mode, number = ARGV[1], tonumber(ARGV[2])
local own = cjson.decode(ARGV[13])
local held = redis.call('HMGET', post, unpack(own))
local current = {}
for i, name in ipairs(own) do
  if held[i] then current[name] = held[i] end
end
if not current['version'] then return {'missing', post} end
local version = tonumber(current['version'])
local content, member
if mode == 'save' then
  if version ~= number then
    local base = redis.call('ZRANGEBYSCORE', revisions, number, number)[1] or ''
    local newer = redis.call('ZREVRANGEBYSCORE', revisions, '+inf', '(' .. number, 'LIMIT', 0, tonumber(ARGV[17]))
    local reply = {'conflict', 'version', cjson.encode(current), base}
    for _, raw in ipairs(newer) do reply[#reply + 1] = raw end
    return reply
  end
  content, member = cjson.decode(ARGV[12]), ARGV[11]
else
  local raw = redis.call('ZRANGEBYSCORE', revisions, number, number)[1]
  if not raw then return {'missing', revisions .. ' has no revision ' .. number} end
  local snapshot = cjson.decode(raw)
  content = {title = snapshot['title'] or '', body = snapshot['body'] or '',
             author = snapshot['author'] or '', status = snapshot['status'] or 'draft'}
  member = snapshot['title_member']
  if ARGV[11] ~= '' then member = ARGV[11] end
end
local author = current['author'] or ''
local title = current['title'] or ''
if author ~= ARGV[3] or content['author'] ~= ARGV[4] or not member or title ~= ARGV[19]
    or content['title'] ~= ARGV[20] then
  return {'conflict', 'keys', author, content['author'], content['title'], title}
end
local defaults = {title = '', body = '', author = '', status = 'draft'}
local changed = {}
for _, name in ipairs({'title', 'body', 'author', 'status'}) do
  if content[name] ~= (current[name] or defaults[name]) then changed[#changed + 1] = name end
end
if #changed == 0 then return {'ok'} end

redis.call('ZADD', revisions, version, cjson.encode(current))
local cap = tonumber(ARGV[10])
if cap > 0 then redis.call('ZREMRANGEBYRANK', revisions, 0, -(cap + 1)) end

local new = {}
for name, value in pairs(current) do new[name] = value end
for _, name in ipairs(changed) do new[name] = content[name] end
new['last_saved_by'], new['updated_at'], new['version'] = ARGV[8], ARGV[7], tostring(version + 1)
new['comment'], new['changed'] = ARGV[9], table.concat(changed, ',')
new['title_member'], new['schema'] = member, ARGV[18]
local flat = {}
for name, value in pairs(new) do flat[#flat + 1] = name; flat[#flat + 1] = value end
redis.call('HSET', post, unpack(flat))

local id, at = ARGV[16], ARGV[7]
local leaves = tonumber(ARGV[21])
for i = 11, 10 + leaves do redis.call('SREM', KEYS[i], id) end
for i = 11 + leaves, #KEYS do redis.call('SADD', KEYS[i], id) end
redis.call('ZADD', KEYS[3], at, id)
if current['title_member'] and current['title_member'] ~= member then
  redis.call('ZREM', KEYS[4], current['title_member'])
end
redis.call('ZADD', KEYS[4], 0, member)
local status_index = {draft = KEYS[5], published = KEYS[6]}
local old_status = status_index[current['status'] or 'draft']
local new_status = status_index[new['status']]
if old_status and old_status ~= new_status then redis.call('ZREM', old_status, id) end
if new_status then redis.call('ZADD', new_status, at, id) end
if ARGV[5] == '1' and author ~= new['author'] then
  redis.call('ZREM', KEYS[7], id)
  if redis.call('ZCARD', KEYS[7]) == 0 then redis.call('ZREM', KEYS[10], ARGV[22]) end  -- their last post
end
if ARGV[6] == '1' then
  redis.call('ZADD', KEYS[8], at, id)
  redis.call('ZADD', KEYS[10], 0, ARGV[23])
end

local event = cjson.decode(ARGV[14])
for i = 1, #event, 2 do
  if event[i] == 'label' then event[i + 1] = new['title'] end  -- a restore learns its title here
end
redis.call('XADD', KEYS[9], 'MAXLEN', tonumber(ARGV[15]), '*', unpack(event))
return {'ok', cjson.encode(new)}
