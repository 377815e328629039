-- key browser: SCAN a page
-- SCAN in steps until a page is full, the keyspace is walked, or the slots the steps may ask for in
-- all (ARGV[5]) are asked. Hidden prefixes (ARGV[7] on) are dropped here so they never leave Redis.
-- Reply: the next cursor, the SCAN steps made, the keys found.
local cursor, match, kind = ARGV[1], ARGV[2], ARGV[3]
local want, budget, most = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local found, done, asked, count = {}, 0, 0, math.min(want, budget)
repeat
  local reply
  if kind == '' then
    reply = redis.call('SCAN', cursor, 'MATCH', match, 'COUNT', count)
  else
    reply = redis.call('SCAN', cursor, 'MATCH', match, 'COUNT', count, 'TYPE', kind)
  end
  cursor, done, asked = reply[1], done + 1, asked + count
  for _, key in ipairs(reply[2]) do
    local shown = true
    for i = 7, #ARGV do
      if string.sub(key, 1, #ARGV[i]) == ARGV[i] then shown = false break end
    end
    if shown then found[#found + 1] = key end
  end
  -- Ask for as many slots as the hit rate so far says the page still needs, within the budget.
  if #found == 0 then
    count = math.min(count * 4, most)
  else
    count = math.max(10, math.min(most, math.ceil((want - #found) * asked / #found)))
  end
  count = math.min(count, budget - asked)
until cursor == '0' or #found >= want or count <= 0
return {cursor, done, found}
