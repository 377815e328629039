-- Create or update one document (args.entity) and every index derived from it.
-- KEYS (course): document, id index, lex index, code index, roster, course's holds, then the title's
--   trigram sets (args.grams_out the document leaves, then those it joins), events.
-- KEYS (person): document, id index, lex index, version counts, then the name's trigram sets, events.
-- The piece sets were computed from args.gram_text, the stored name, or code and title (``searched_text``);
-- if another is stored, nothing is written and the reply asks for the sets of that one
-- ({'conflict', 'text', stored}).
local course = args.entity == 'course'
local flat = redis.call('HGETALL', KEYS[1])
local old, exists = as_table(flat), #flat > 0
if not args.creating and not exists then return missing(args.entity, args.id) end
if args.expected ~= '' and fingerprint(flat) ~= args.expected then return {'conflict', 'stale'} end
local new = args.fields
local stored = ''
if exists then
  if course then stored = (old.code or '') .. ' ' .. (old.title or '') else stored = old.name or '' end
end
if stored ~= args.gram_text then return {'conflict', 'text', stored} end
if course then
  local owner = redis.call('HGET', KEYS[4], new.code)
  if owner and owner ~= args.id then return refuse('code', 'code_taken', new) end
  local taken = redis.call('ZCARD', KEYS[5]) + redis.call('ZCOUNT', KEYS[6], '(' .. now_ms(), '+inf')
  if tonumber(new.capacity) < taken then return refuse('capacity', 'capacity', {taken = taken}) end
end

if exists then
  -- The old lex member: the label lower-cased, as Python's casefold gives it for ASCII;
  -- other text the caller casefolds (it sent it, or is asked for it).
  local label_field = course and 'code' or 'name'
  local old_label = old[label_field] or ''
  local old_sort
  if old_label == new[label_field] then
    old_sort = args.sort
  elseif old_label == args.old_label then
    old_sort = args.old_sort
  elseif not old_label:find('[\128-\255]') then
    old_sort = string.lower(old_label)
  else
    return {'conflict', 'sort', old_label}
  end
  local stale = {}
  for field in pairs(old) do
    if new[field] == nil then stale[#stale + 1] = field end
  end
  if #stale > 0 then redis.call('HDEL', KEYS[1], unpack(stale)) end
  redis.call('ZREM', KEYS[3], old_sort .. '\0' .. args.id)
  if course and old.code ~= new.code then redis.call('HDEL', KEYS[4], old.code or '') end
  if not course and old.schema ~= new.schema then
    redis.call('HINCRBY', KEYS[4], old.schema or '?', -1)
    redis.call('HINCRBY', KEYS[4], new.schema, 1)
  end
elseif not course then
  redis.call('HINCRBY', KEYS[4], new.schema, 1)
end
local pairs_ = {}
for field, value in pairs(new) do
  pairs_[#pairs_ + 1] = field
  pairs_[#pairs_ + 1] = value
end
redis.call('HSET', KEYS[1], unpack(pairs_))
local first = course and 7 or 5
for i = first, first + args.grams_out - 1 do redis.call('SREM', KEYS[i], args.id) end
for i = first + args.grams_out, #KEYS - 1 do redis.call('SADD', KEYS[i], args.id) end
redis.call('ZADD', KEYS[2], args.id, args.id)
redis.call('ZADD', KEYS[3], 0, args.sort .. '\0' .. args.id)
if course then redis.call('HSET', KEYS[4], new.code, args.id) end
log_event({})
return {'ok'}
