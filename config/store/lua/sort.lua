-- sort(key, ...): SORT's reply, its BY and GET joins read by the script itself (a cluster refuses them).
-- A library: a read script is this file followed by its own, calling sort where it called SORT.
-- Options as SORT takes them: BY nosort or BY prefix*->field, LIMIT offset count, ASC/DESC, ALPHA, GET #,
-- GET prefix*->field, GET prefix*. Elements are ordered as numbers (ALPHA: as strings) by themselves or by
-- BY's values, a missing value first, equal ones by the element (where SORT leaves ties to its quicksort);
-- BY nosort keeps a sorted set's own order with LIMIT as a range; then each GET pattern is read with HMGET
-- (a hash's fields at once) or GET. rows_of(ids, gets) is its GET alone, for ids a script chose itself.
local sort_itself = true  -- false: never ask SORT (what a cluster ends up doing)
local function lookup(pattern, id)
  local star = string.find(pattern, '*', 1, true)
  local arrow = string.find(pattern, '->', star, true)
  local name = string.sub(pattern, 1, star - 1) .. id .. string.sub(pattern, star + 1, (arrow or 0) - 1)
  if arrow then return redis.call('HGET', name, string.sub(pattern, arrow + 2)) end
  return redis.call('GET', name)
end
-- Each id's row, as SORT's GET patterns read it: ``#`` the id itself, ``prefix*->field`` a field of
-- its hash, ``prefix*`` a string key.
local function rows_of(ids, gets)
  -- The GET patterns of one hash's fields grouped, so that a row costs one HMGET per hash it reads
  -- rather than an HGET per field: ``hashes`` in the order first named, ``slot[g]`` where the g-th
  -- pattern's value comes from (false: the element itself; a string: a GET of that key pattern).
  local hashes, by_name, slot = {}, {}, {}
  for g, pattern in ipairs(gets) do
    local star = string.find(pattern, '*', 1, true)
    local arrow = star and string.find(pattern, '->', star, true)
    if pattern == '#' then slot[g] = false
    elseif not arrow then slot[g] = pattern
    else
      local name = string.sub(pattern, 1, arrow - 1)
      local hash = by_name[name]
      if not hash then
        hash = {head = string.sub(pattern, 1, star - 1), tail = string.sub(pattern, star + 1, arrow - 1)}
        hash.fields, hash.at = {}, {}
        by_name[name] = hash
        hashes[#hashes + 1] = hash
      end
      hash.fields[#hash.fields + 1] = string.sub(pattern, arrow + 2)
      hash.at[#hash.at + 1] = g
      slot[g] = true
    end
  end
  local out, row = {}, {}
  for _, id in ipairs(ids) do
    for _, hash in ipairs(hashes) do
      local values = redis.call('HMGET', hash.head .. id .. hash.tail, unpack(hash.fields))
      for j, g in ipairs(hash.at) do row[g] = values[j] end
    end
    for g, pattern in ipairs(gets) do
      local how = slot[g]
      if how == false then out[#out + 1] = id
      elseif how == true then out[#out + 1] = row[g]
      else out[#out + 1] = lookup(pattern, id) end
    end
  end
  return out
end
local function sort(key, ...)
  local args, nosort, by, alpha, offset, count, desc, gets = {...}, false, nil, false, 0, -1, false, {}
  local i = 1
  while i <= #args do
    local option = string.upper(args[i])
    if option == 'BY' then
      if string.find(args[i + 1], '*', 1, true) then by = args[i + 1] else nosort = true end
      i = i + 2
    elseif option == 'LIMIT' then offset, count, i = tonumber(args[i + 1]), tonumber(args[i + 2]), i + 3
    elseif option == 'GET' then gets[#gets + 1], i = args[i + 1], i + 2
    elseif option == 'DESC' then desc, i = true, i + 1
    elseif option == 'ALPHA' then alpha, i = true, i + 1
    else i = i + 1 end
  end
  local kind, ids = redis.call('TYPE', key)['ok'], {}
  -- With no BY pattern and no ALPHA, SORT itself answers alike (ids are distinct numbers: no tie to
  -- break), in C, with no Lua step per id. Where it is refused, the script reads the page itself: a cluster refuses
  -- its GET patterns, a server out of memory or a read-only replica refuses it (it may write, with
  -- STORE). A set read BY nosort is left to the script: SORT orders it as strings inside a script.
  if sort_itself and not by and not alpha and not (nosort and kind == 'set') then
    local reply = redis.pcall('SORT', key, ...)
    if not reply.err then return reply end
  end
  if nosort and kind == 'zset' then
    local stop = -1
    if count >= 0 then stop = offset + count - 1 end
    if count ~= 0 then
      local range = 'ZRANGE'
      if desc then range = 'ZREVRANGE' end
      ids = redis.call(range, key, offset, stop)
    end
  else
    local all = {}
    if kind == 'set' then all = redis.call('SMEMBERS', key)
    elseif kind == 'zset' then all = redis.call('ZRANGE', key, 0, -1)
    elseif kind == 'list' then all = redis.call('LRANGE', key, 0, -1) end
    if not nosort then
      -- SORT's order: by the weight (the element, or BY's value: a missing one first), as numbers or
      -- (ALPHA) as strings; equal weights by the element, so the order is the same every time.
      local weight = {}
      for _, id in ipairs(all) do
        local value = id
        if by then value = lookup(by, id) end
        if not alpha then value = tonumber(value) or 0 end
        weight[id] = value
      end
      local function before(a, b)
        local x, y = weight[a], weight[b]
        if x == y then return a < b end
        if not x then return true end
        if not y then return false end
        return x < y
      end
      if desc then table.sort(all, function(a, b) return before(b, a) end) else table.sort(all, before) end
    end
    local last = #all
    if count >= 0 then last = math.min(last, offset + count) end
    for n = offset + 1, last do ids[#ids + 1] = all[n] end
  end
  if #gets == 0 then return ids end
  return rows_of(ids, gets)
end
