-- Delete one document and every reference to it, provided its relations are still the
-- members the caller read (args.relations); else a conflict, and the caller reads again.
-- KEYS: document, id index, lex index, code index or version counts, then the keys the
-- relations name by position (their own sets, the other sides, the hold keys), then the
-- trigram sets of the name (a course's title: args.gram_text, checked) from args.grams_from, events.
local flat = redis.call('HGETALL', KEYS[1])
if #flat == 0 then return missing(args.entity, args.id) end
local old = as_table(flat)
if (old[args.label_field] or '') ~= args.label then return {'conflict'} end
if (old[args.gram_field] or '') ~= args.gram_text then return {'conflict'} end
for _, rel in ipairs(args.relations) do
  local own = KEYS[rel.own]
  local size = rel.kind == 'set' and redis.call('SCARD', own) or redis.call('ZCARD', own)
  if size ~= #rel.members then return {'conflict'} end
  for _, member in ipairs(rel.members) do
    local present
    if rel.kind == 'set' then
      present = redis.call('SISMEMBER', own, member) == 1
    else
      present = redis.call('ZSCORE', own, member)
    end
    if not present then return {'conflict'} end
  end
end

redis.call('DEL', KEYS[1])
for i = args.grams_from, #KEYS - 1 do redis.call('SREM', KEYS[i], args.id) end
redis.call('ZREM', KEYS[2], args.id)
redis.call('ZREM', KEYS[3], args.sort .. '\0' .. args.id)
if args.entity == 'course' then
  redis.call('HDEL', KEYS[4], old.code or '')
else
  redis.call('HINCRBY', KEYS[4], old.schema or '1', -1)
end
for _, rel in ipairs(args.relations) do
  redis.call('DEL', KEYS[rel.own])
  for i = 1, #rel.members do
    if rel.kind == 'set' then
      redis.call('SREM', KEYS[rel.others[i]], args.id)
    else
      redis.call('ZREM', KEYS[rel.others[i]], args.id)
      redis.call('DEL', KEYS[rel.holds[i]])
    end
  end
end
log_event({})
return {'ok'}
