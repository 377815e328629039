-- A slice of a set's members with their scores in the sort index (SSCAN, then ZMSCORE of what it gave),
-- each member kept if every other all-of set holds it, one any-of set at least (when there are any) and
-- no none-of set: with no other set, the slice as it is. A member the index lacks (of another type than a
-- type's own index) has no score, and is dropped by the caller.
-- KEYS: the set scanned, the sort index, the other all-of sets, the any-of sets, the none-of sets.
-- ARGV: the SSCAN cursor, its COUNT, how many all-of, any-of and none-of sets follow.
-- Replies the next cursor, the members kept and their scores (nil where the index lacks one).
local reply = redis.call('SSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
local ids = reply[2]
local alls, anys, nones = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local function keep(key, wanted)
  if #ids == 0 then return end
  local held, kept = redis.call('SMISMEMBER', key, unpack(ids)), {}
  for n, one in ipairs(held) do
    if (one == 1) == wanted then kept[#kept + 1] = ids[n] end
  end
  ids = kept
end
for i = 3, 2 + alls do keep(KEYS[i], true) end
if anys > 0 and #ids > 0 then
  local any = {}
  for i = 3 + alls, 2 + alls + anys do
    local held = redis.call('SMISMEMBER', KEYS[i], unpack(ids))
    for n, one in ipairs(held) do
      if one == 1 then any[n] = true end
    end
  end
  local kept = {}
  for n, id in ipairs(ids) do
    if any[n] then kept[#kept + 1] = id end
  end
  ids = kept
end
for i = 3 + alls + anys, 2 + alls + anys + nones do keep(KEYS[i], false) end
if #ids == 0 then return {reply[1], {}, {}} end
return {reply[1], ids, redis.call('ZMSCORE', KEYS[2], unpack(ids))}
