-- key browser: SCAN for orphans
-- SCAN for keys that match no registered pattern, matched inside Redis so only the orphans travel
-- back. The registry comes as JSON (ARGV[5]): names without a wildcard in a set, and Lua patterns
-- indexed by their first two segments (or the first, or none, where those hold a wildcard) and
-- their number of segments (a '*' never spans a ':'), so a key is looked up, then tried against
-- its own few patterns only. COUNT adapts to the orphan rate so far, as in scan_page, and never
-- asks past ARGV[3] slots or keys examined. Stops at about ARGV[2] orphans, at the end of the
-- keyspace, or at ARGV[3].
local cursor, want, most, top = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local registry = cjson.decode(ARGV[5])
local exact, two, one, any = {}, registry.two, registry.one, registry.any
for _, name in ipairs(registry.exact) do exact[name] = true end
local none = {}
local function owned_by(list, key)
  for _, pattern in ipairs(list) do
    if string.find(key, pattern) then return true end
  end
  return false
end
local found, examined, asked, count = {}, 0, 0, math.min(want, most)
repeat
  local reply = redis.call('SCAN', cursor, 'COUNT', count)
  cursor, asked = reply[1], asked + count
  for _, key in ipairs(reply[2]) do
    examined = examined + 1
    if not exact[key] then
      local first, second = string.match(key, '^([^:]*):?([^:]*)')
      local shape = '#' .. (select(2, string.gsub(key, ':', ':')) + 1)
      if not (owned_by(two[first .. ':' .. second .. shape] or none, key)
              or owned_by(one[first .. shape] or none, key) or owned_by(any, key)) then
        found[#found + 1] = key
      end
    end
  end
  if #found == 0 then
    count = math.min(count * 4, top)
  else
    count = math.max(10, math.min(top, math.ceil((want - #found) * examined / #found)))
  end
  count = math.min(count, most - math.max(examined, asked))
until cursor == '0' or #found >= want or count <= 0
return {cursor, examined, found}
