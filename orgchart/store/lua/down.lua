-- Walk down one level at a time from ``cur`` (people at ``level``): the report sets of up to a
-- chunk of a level's people (a quarter of the budget left, and at most ``WIDE`` ids, the
-- ``conf.wide_set()`` each script is given) are read by one SUNION after a SCARD each (a tree's
-- report sets are disjoint, so the union is exactly the next level's people). A set of more than
-- ``WIDE`` ids stops the walk before it: the caller reads it by cursor. Each set read and
-- each person found is a step; the walk stops
-- when the budget is spent, below ``maxdepth`` or at the bottom. Ids stay the strings Redis holds
-- (a number would cost a conversion each way). Returns the lists of people found, one per level
-- below ``level``, and how many people of the last level walked had their sets read (a prefix:
-- the rest, and everyone in the last list, are still to walk).
local function down(cur, level, maxdepth, budget, WIDE)
  local lists, used, pos, blocked = {}, 0, 1, false
  repeat
    local nxt = {}
    pos = 1
    while pos <= #cur and used < budget and not blocked do
      -- a quarter of what is left: each set read brings its people (a few) into the budget too
      local chunk = math.max(1, math.min(1000, math.floor((budget - used) / 4)))
      local last, names, members = math.min(#cur, pos + chunk - 1), {}, 0
      -- No SUNION reads more than WIDE ids; a set larger than that (a manager of 100,000) is never
      -- read whole: the walk stops before it, and the caller reads it by cursor.
      for i = pos, last do
        local key = E .. cur[i] .. RS
        local n = redis.call('SCARD', key)
        if n > WIDE or (members + n > WIDE and #names > 0) then
          last, blocked = i - 1, n > WIDE
          break
        end
        names[#names + 1], members = key, members + n
      end
      if #names > 0 then
        local got = redis.call('SUNION', unpack(names))
        if #nxt == 0 then nxt = got else for _, id in ipairs(got) do nxt[#nxt + 1] = id end end
        used = used + #names + #got
      end
      pos = last + 1
    end
    lists[#lists + 1] = nxt
    level = level + 1
    local whole = pos > #cur
    cur = nxt
  until not whole or #nxt == 0 or level >= maxdepth or used >= budget
  return lists, pos - 1
end
