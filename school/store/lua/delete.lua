-- Delete one document and every reference to it, provided its relations are still the
-- members the caller read (args.relations); else a conflict, and the caller reads again.
-- KEYS: document, id index, lex index, code index or version counts, then the keys the
-- relations name by position (their own sets, the other sides, the hold keys), then the
-- trigram sets of the name (a course's title: args.gram_text, checked) from args.grams_from, events.
-- rel.kind and rel.other_kind: the Redis type of the relation's own side and of the other's.
local flat = redis.call('HGETALL', KEYS[1])
if #flat == 0 then return missing(args.entity, args.id) end
local old = as_table(flat)
if (old[args.label_field] or '') ~= args.label then return {'conflict'} end
if (old[args.gram_field] or '') ~= args.gram_text then return {'conflict'} end
for _, rel in ipairs(args.relations) do
  local own = KEYS[rel.own]
  if side_size(rel.kind, own) ~= #rel.members then return {'conflict'} end
  for _, member in ipairs(rel.members) do
    if not side_has(rel.kind, own, member) then return {'conflict'} end
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
    side_remove(rel.other_kind, KEYS[rel.others[i]], args.id)
    if rel.holds[i] then redis.call('DEL', KEYS[rel.holds[i]]) end
  end
end
log_event({})
return {'ok'}
