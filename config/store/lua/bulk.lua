-- A batch of plain commands (``BulkWrite``). KEYS: the key of each command, in order. ARGV, command after
-- command: its argument count, its name, its arguments; every argument a string (a score is never
-- rounded on the way), no key name built here. Plain arguments rather than one JSON document: decoding
-- JSON in Lua costs the server more than the commands themselves.
local at = 1
for i = 1, #KEYS do
  local count = tonumber(ARGV[at])
  redis.call(ARGV[at + 1], KEYS[i], unpack(ARGV, at + 2, at + 1 + count))
  at = at + 2 + count
end
return #KEYS
