-- KEYS: the first person's report set. ARGV: max depth, budget, the level of the people sent,
-- then their ids (all at that level). One JSON array: how many of its last level the walk walked,
-- then each level's ids: one string, not a reply element an id, which costs the server's reply and
-- the client's parser a conversion per id; the client's json module reads it in one C call.
local cur = {}
for i = 12, #ARGV do cur[i - 11] = ARGV[i] end
local lists, walked = down(cur, tonumber(ARGV[10]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[11]))
local out = {walked}
for i, list in ipairs(lists) do out[i + 1] = '[' .. table.concat(list, ',') .. ']' end
return '[' .. table.concat(out, ',') .. ']'
