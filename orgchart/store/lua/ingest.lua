-- One sensor-hour's write (``store.sensors``): its raw records and the rollups kept from them.
-- KEYS: the hour's raw bucket, its hour, day and month rollups, the latest hash; for a merge, then
-- the day's 24 hourly and the month's daily rollups. ARGV: the TTLs of raw, hour, day and month
-- buckets (0: none), the hour's start, its records packed (second, value + 32768: ``OFFSET``),
-- their count, sum, min and max. Replies the samples added, -1 when a merge needs every key
-- (nothing written) or -2 (``GONE``) for a deleted location's sensor.
local function decode(s)
  local secs, vals = {}, {}
  local pos = 1
  while pos <= #s do
    local sec, val
    sec, val, pos = struct.unpack('>HH', s, pos)
    secs[#secs + 1] = sec
    vals[sec] = val - 32768
  end
  return secs, vals
end

-- A deleted location's sensor keeps a tombstone in its latest hash: nothing is written for it again.
if redis.call('HEXISTS', KEYS[5], 'deleted') == 1 then return -2 end
local batch = ARGV[6]
local first_new = struct.unpack('>H', batch, 1)
local last_new, last_value = struct.unpack('>HH', batch, #batch - 3)
last_value = last_value - 32768
local last_old = -1
local size = redis.call('STRLEN', KEYS[1])
if size >= 4 then last_old = struct.unpack('>H', redis.call('GETRANGE', KEYS[1], size - 4, size - 1)) end
-- Called with the five keys of an append only: a merge may recompute the day's and month's extremes from
-- the rollups below them, so it asks (having written nothing) to be called again with every key.
if #KEYS == 5 and first_new <= last_old then return -1 end

local add_count, add_sum, bmin, bmax = 0, 0, nil, nil
local replaced = false
if first_new > last_old then
  -- the usual case, samples after the stored ones: the caller's count, sum, min and max of the batch
  redis.call('APPEND', KEYS[1], batch)
  add_count, add_sum, bmin, bmax = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
else
  local new_secs, new_vals = decode(batch)
  local secs, vals = decode(redis.call('GET', KEYS[1]) or '')
  for _, sec in ipairs(new_secs) do
    local v = new_vals[sec]
    local old = vals[sec]
    if old == nil then
      secs[#secs + 1] = sec
      add_count = add_count + 1
      add_sum = add_sum + v
    else
      add_sum = add_sum + v - old
      if v ~= old then replaced = true end
    end
    vals[sec] = v
    if bmin == nil or v < bmin then bmin = v end
    if bmax == nil or v > bmax then bmax = v end
  end
  table.sort(secs)
  local parts = {}
  for i, sec in ipairs(secs) do parts[i] = struct.pack('>HH', sec, vals[sec] + 32768) end
  redis.call('SET', KEYS[1], table.concat(parts))
  if replaced then
    -- a corrected value may have been the hour's min or max: recompute the hour from its samples
    local c, s, mn, mx = 0, 0, nil, nil
    for _, sec in ipairs(secs) do
      local v = vals[sec]
      c = c + 1; s = s + v
      if mn == nil or v < mn then mn = v end
      if mx == nil or v > mx then mx = v end
    end
    redis.call('HSET', KEYS[2], 'count', c, 'sum', s, 'min', mn, 'max', mx)
  end
end

local function fold(key, count, sum, mn, mx)
  redis.call('HINCRBY', key, 'count', count)
  redis.call('HINCRBY', key, 'sum', sum)
  local cur = redis.call('HMGET', key, 'min', 'max')
  if cur[1] == false or mn < tonumber(cur[1]) then redis.call('HSET', key, 'min', mn) end
  if cur[2] == false or mx > tonumber(cur[2]) then redis.call('HSET', key, 'max', mx) end
end

local function recompute_extremes(key, first, last)
  local mn, mx = nil, nil
  for i = first, last do
    local cur = redis.call('HMGET', KEYS[i], 'min', 'max')
    if cur[1] then
      local a, b = tonumber(cur[1]), tonumber(cur[2])
      if mn == nil or a < mn then mn = a end
      if mx == nil or b > mx then mx = b end
    end
  end
  redis.call('HSET', key, 'min', mn, 'max', mx)
end

local days_from = 6 + 24
if not replaced then
  fold(KEYS[2], add_count, add_sum, bmin, bmax)
  fold(KEYS[3], add_count, add_sum, bmin, bmax)
  fold(KEYS[4], add_count, add_sum, bmin, bmax)
else
  redis.call('HINCRBY', KEYS[3], 'count', add_count)
  redis.call('HINCRBY', KEYS[3], 'sum', add_sum)
  recompute_extremes(KEYS[3], 6, days_from - 1)
  redis.call('HINCRBY', KEYS[4], 'count', add_count)
  redis.call('HINCRBY', KEYS[4], 'sum', add_sum)
  recompute_extremes(KEYS[4], days_from, #KEYS)
end

local ttls = {ARGV[1], ARGV[2], ARGV[3], ARGV[4]}
for i = 1, 4 do
  if tonumber(ttls[i]) > 0 then redis.call('EXPIRE', KEYS[i], ttls[i]) end
end

local hour_start = tonumber(ARGV[5])
local newest = hour_start + last_new
local oldest = hour_start + first_new
local latest = redis.call('HMGET', KEYS[5], 'ts', 'first')
if latest[1] == false or newest >= tonumber(latest[1]) then
  redis.call('HSET', KEYS[5], 'ts', newest, 'value', last_value)
end
if latest[2] == false or oldest < tonumber(latest[2]) then
  redis.call('HSET', KEYS[5], 'first', oldest)
end
return add_count
