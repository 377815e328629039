-- Prepended to every school write script: its arguments, the clock, the replies and the event.
-- Every key a script touches comes in KEYS (the events stream last); ARGV[1] is one
-- JSON object of arguments. A script replies as every write script does (config/store/scripts.py):
-- {'ok', ...}, {'missing', message, field}, {'refused', field, message} or {'conflict', ...}.
local args = cjson.decode(ARGV[1])

-- A template's {name}s filled from ``vars``.
local function fill(template, vars)
  return (template:gsub('{(%w+)}', function(k) return tostring(vars[k]) end))
end

-- The document ``entity`` ``id`` is gone; ``field`` is the form field that named it ('' for the page's own).
local function missing(entity, id, field)
  return {'missing', entity .. ' ' .. id .. ' does not exist', field or ''}
end

-- The refusal ``why`` on ``field``: the message is the caller's template ``args.refusals[why]``, filled.
local function refuse(field, why, vars)
  return {'refused', field, fill(args.refusals[why], vars)}
end

-- Milliseconds on the server's clock, the one clock every hold deadline is measured by.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The activity event, in the same script as the write: args.event holds its fields,
-- the label's {name} and {code} filled from what the script read.
local function log_event(vars)
  local ev = args.event
  local label = fill(ev.label, vars)
  redis.call('XADD', KEYS[#KEYS], 'MAXLEN', args.events_maxlen, '*',
    'actor', ev.actor, 'verb', ev.verb, 'app', ev.app, 'entity', ev.entity,
    'object_id', ev.object_id, 'label', label, 'link', ev.link)
end

-- A hash reply as a table, and the document's fingerprint as documents.fingerprint makes it.
local function as_table(flat)
  local t = {}
  for i = 1, #flat, 2 do t[flat[i]] = flat[i + 1] end
  return t
end

local function bytes_less(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

local function fingerprint(flat)
  local names, fields = {}, as_table(flat)
  for name in pairs(fields) do names[#names + 1] = name end
  table.sort(names, bytes_less)
  local parts = {}
  for _, name in ipairs(names) do
    local value = fields[name]
    parts[#parts + 1] = #name .. ':' .. name .. #value .. ':' .. value
  end
  return string.sub(redis.sha1hex(table.concat(parts)), 1, 16)
end

-- One side of a relation, by its Redis type as the caller names it: 'set' (a bounded side), or 'zset'
-- (a roster, scored by student id; a holds index, scored by expiry).
local function side_size(kind, key)
  return redis.call(kind == 'zset' and 'ZCARD' or 'SCARD', key)
end

local function side_has(kind, key, member)
  if kind == 'zset' then return redis.call('ZSCORE', key, member) ~= false end
  return redis.call('SISMEMBER', key, member) == 1
end

local function side_remove(kind, key, member)
  redis.call(kind == 'zset' and 'ZREM' or 'SREM', key, member)
end
