-- The set algebra screen in one command: ZINTERSTORE / ZUNIONSTORE / ZDIFFSTORE of the rosters into
-- a key that expires, one page of it joined with its students' fields, and each course's shown
-- fields with its roster's size.
-- KEYS: the result key, the key large rosters' steps build it in (algebra_step.lua), the n rosters, the
--   n courses (in the same order).
-- ARGV: the command (ZINTERSTORE, ZUNIONSTORE or ZDIFFSTORE), the result's time to live (s), the
--   page's offset and count, the rosters' members combined here at most (past it a result still stored is
--   paged, else the reply is {'steps'}, having done nothing else) or 'built' (the steps are done: the built
--   key, renamed, is the result), the number of a course's fields shown, those fields, then SORT's GET
--   options for a student ('GET', '#', 'GET', <pattern>, ...: the patterns from keys.py).
-- A roster scores each student by id; AGGREGATE MIN keeps that score in an intersection or a union
-- (a difference keeps the first roster's), so the result is in id order too and its page is a range
-- of ranks (SORT BY nosort LIMIT … GET), never the result sorted whole.
-- Replies {the result's size, the page's GET rows, then per course its fields and its roster's size}.
local n = (#KEYS - 2) / 2
local rosters = {unpack(KEYS, 3, n + 2)}

-- Every roster in the compact encoding (a ziplist or listpack: at most zset-max-ziplist-entries): there
-- ZINTERSTORE and ZDIFFSTORE would find each member of one roster in the others by a linear scan,
-- quadratic in the rosters' size, so an intersection or a difference is read whole (bounded by that
-- encoding's size) and counted by id instead, in one pass, its members written in id order.
local function compact()
  for _, roster in ipairs(rosters) do
    if redis.call('OBJECT', 'ENCODING', roster) == 'skiplist' then return false end
  end
  return true
end

local function counted(op)
  local first, seen = redis.call('ZRANGE', rosters[1], 0, -1), {}
  for i = 2, n do
    for _, id in ipairs(redis.call('ZRANGE', rosters[i], 0, -1)) do seen[id] = (seen[id] or 0) + 1 end
  end
  local wanted = op == 'ZINTERSTORE' and n - 1 or 0
  local members = {}
  for _, id in ipairs(first) do
    if (seen[id] or 0) == wanted then
      members[#members + 1] = id
      members[#members + 1] = id
    end
  end
  if #members > 0 then redis.call('ZADD', KEYS[1], unpack(members)) end
  return #members / 2
end

-- Past the bound, a result still stored (it expires within the TTL) is paged as it is: a large algebra's
-- next page costs no steps again.
local stored = false
if ARGV[5] ~= 'built' then
  local size = 0
  for _, roster in ipairs(rosters) do size = size + redis.call('ZCARD', roster) end
  if size > tonumber(ARGV[5]) then
    if redis.call('EXISTS', KEYS[1]) == 0 then return {'steps'} end
    stored = true
  end
end
local total
if stored then
  total = redis.call('ZCARD', KEYS[1])
else
  -- The result replaced: UNLINK frees a large one in the background, where overwriting it would free it here.
  redis.call('UNLINK', KEYS[1])
  if ARGV[5] == 'built' then
    if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('RENAME', KEYS[2], KEYS[1]) end
    total = redis.call('ZCARD', KEYS[1])
  elseif ARGV[1] ~= 'ZUNIONSTORE' and compact() then
    total = counted(ARGV[1])
  else
    local command = {ARGV[1], KEYS[1], n, unpack(rosters)}
    if ARGV[1] ~= 'ZDIFFSTORE' then
      command[#command + 1] = 'AGGREGATE'
      command[#command + 1] = 'MIN'
    end
    total = redis.call(unpack(command))
  end
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
local nfields = tonumber(ARGV[6])
local fields = {unpack(ARGV, 7, 6 + nfields)}
local found = {total, sort(KEYS[1], 'BY', 'nosort', 'LIMIT', ARGV[3], ARGV[4], unpack(ARGV, 7 + nfields))}
for i = 1, n do
  found[#found + 1] = redis.call('HMGET', KEYS[n + 2 + i], unpack(fields))
  found[#found + 1] = redis.call('ZCARD', rosters[i])
end
return found
