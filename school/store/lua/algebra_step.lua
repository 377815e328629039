-- One bounded step of the set algebra over large rosters, into a key being built: the members of every
-- roster in the next slice of ids, combined as ZINTERSTORE / ZUNIONSTORE / ZDIFFSTORE would combine them.
-- KEYS: the key being built, the n rosters. ARGV: the command, the last id the steps before covered
--   ('-inf' at first), the step (members read of each roster at most), the built key's time to live (s).
-- A roster scores each student by id, so a slice of ids is a range of scores in every roster: each gives
-- at most a step of members past the last id, the slice ends at the least last id of a roster that gave a
-- full step (members past it wait for the next), and a roster that gave less has no more. The work of a
-- step is at most n steps of members, whatever the rosters' size.
-- Replies the last id covered, or 'done'.
local n, after, step = #KEYS - 1, ARGV[2], tonumber(ARGV[3])
local lower = after == '-inf' and '-inf' or '(' .. after
local slices, last = {}, nil
for i = 1, n do
  local members = redis.call('ZRANGEBYSCORE', KEYS[i + 1], lower, '+inf', 'LIMIT', 0, step)
  slices[i] = members
  if #members == step then
    local top = tonumber(members[#members])
    if not last or top < last then last = top end
  end
end
local seen = {}
for i = 1, n do
  for _, id in ipairs(slices[i]) do
    if last and tonumber(id) > last then break end
    if i == 1 then seen[id] = 1 elseif seen[id] or ARGV[1] == 'ZUNIONSTORE' then seen[id] = (seen[id] or 0) + 1 end
  end
end
local members = {}
for id, count in pairs(seen) do
  local kept = ARGV[1] == 'ZUNIONSTORE' or (ARGV[1] == 'ZINTERSTORE' and count == n) or (ARGV[1] == 'ZDIFFSTORE' and count == 1)
  if kept then
    members[#members + 1] = id
    members[#members + 1] = id
  end
end
if #members > 0 then redis.call('ZADD', KEYS[1], unpack(members)) end
redis.call('EXPIRE', KEYS[1], ARGV[4])
if last then return tostring(last) end
return 'done'
