-- Lua shared by the delete and its handover slices: the checks, and the move of some direct reports
-- of ``pk`` under ``succ``.
-- ``pk``'s chain, its height and the successor's chain (successor first), or nil and a refusal: the
-- reports, with everyone below them, must stay within MAXD levels under the successor.
local function handover_checks(pk, succ, succkey)
  local oldchain, refusal = own_chain(pk, 'successor')
  if refusal then return nil, refusal end
  local h = height(pk)
  local chain
  if h > 0 then
    chain, refusal = chain_under(pk, succ, 'successor', succkey, h, #oldchain + 1 + h)
  else
    chain, refusal = chain_under(pk, succ, 'successor', succkey, 0, nil)
  end
  if refusal then return nil, refusal end
  return oldchain, h, chain
end
-- Put ``ids`` (direct reports of ``pk``) under ``succ`` ('' for the top): their manager fields, both
-- report sets and name indexes, the heights indexes, and the totals along ``pk``'s chain (``pk``
-- first) and ``chain`` up to where they meet; returns that meeting point ('' at the top).
local function hand_over(pk, succ, ids, oldchain, chain, roots, succreports, succkey)
  local moved, entries, tall = 0, {}, {}
  for _, child in ipairs(ids) do
    local row = redis.call('HMGET', emp(child), 'total', 'folded')
    moved = moved + tonumber(row[1] or 0) + 1
    entries[#entries + 1] = entry(row[2] or '', child)
    local score = redis.call('ZSCORE', heights(pk), child)
    if score then tall[#tall + 1] = {score, child} end
    redis.call('HSET', emp(child), 'manager', succ)
    redis.call('HINCRBY', emp(child), 'version', 1)
  end
  each_chunk(ids, function(part) redis.call('SREM', reports(pk), unpack(part)) end)
  each_chunk(entries, function(part) redis.call('ZREM', names(pk), unpack(part)) end)
  for _, t in ipairs(tall) do redis.call('ZREM', heights(pk), t[2]) end
  redis.call('HINCRBY', emp(pk), 'direct', -#ids)
  local mine = {pk}
  for _, a in ipairs(oldchain) do mine[#mine + 1] = a end
  local onnew = {}
  for _, a in ipairs(chain) do onnew[a] = true end
  local meet = add_up(mine, 1, -moved, onnew)
  lift(pk, oldchain, 1)
  if succ == '' then
    each_chunk(ids, function(part) redis.call('SADD', roots, unpack(part)) end)
  else
    each_chunk(ids, function(part) redis.call('SADD', succreports, unpack(part)) end)
    for _, e in ipairs(entries) do redis.call('ZADD', names(succ), 0, e) end
    for _, t in ipairs(tall) do redis.call('ZADD', heights(succ), t[1], t[2]) end
    redis.call('HINCRBY', succkey, 'direct', #ids)
    for _, a in ipairs(chain) do
      if a == meet then break end
      redis.call('HINCRBY', emp(a), 'total', moved)
    end
    lift(succ, chain, 2)
  end
  return meet
end
