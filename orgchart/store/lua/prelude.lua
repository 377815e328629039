local function emp(id) return E .. id end
local function reports(id) return E .. id .. RS end
local function staff(id) return L .. id .. SS end
local SUMMARY = {'name', 'title', 'location', 'location_name', 'manager', 'full_time', 'direct', 'total'}
local function summary(id) return redis.call('HMGET', E .. id, unpack(SUMMARY)) end
-- Replies are flat arrays (see ``Flat``): a row is its id then its summary fields, a list its
-- length then its items.
local function put_row(out, id)
  out[#out + 1] = id
  local row = summary(id)
  for i = 1, #SUMMARY do out[#out + 1] = row[i] end
end
local function put_rows(out, ids, limit)
  local n = math.min(#ids, limit or #ids)
  out[#out + 1] = n
  for i = 1, n do put_row(out, ids[i]) end
end
local function put_list(out, list)
  out[#out + 1] = #list
  for i = 1, #list do out[#out + 1] = list[i] end
end
local function event(stream, verb, entity, id, label, link)
  redis.call('XADD', stream, 'MAXLEN', ARGV[5], '*', 'actor', ARGV[6], 'verb', verb, 'app', 'orgchart',
    'entity', entity, 'object_id', id, 'label', label, 'link', link)
end
-- Write scripts answer as every store's do (``config.store.scripts.outcome``, decoded by ``written``).
local function refuse(field, message) return {'refused', field, message} end
local function missing(message) return {'missing', message} end
local function conflict(key) return {'conflict', unpack(redis.call('HGETALL', key))} end
-- A record's name entered under ``folded`` in a lexical name index (``folded\0id`` members) and its
-- folded name -> id hash, the entries of its former name ``old`` (false: none) taken out.
local function index_name(lex, by_name, old, folded, pk)
  if old and old ~= folded then
    redis.call('ZREM', lex, old .. '\0' .. pk)
    redis.call('HDEL', by_name, old)
  end
  redis.call('ZADD', lex, 0, folded .. '\0' .. pk)
  redis.call('HSET', by_name, folded, pk)
end
-- SADD/SREM of many members, a thousand at a time (Lua's unpack has a stack limit).
local function each_chunk(members, call)
  for i = 1, #members, 1000 do call({unpack(members, i, math.min(i + 999, #members))}) end
end
