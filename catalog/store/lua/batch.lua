-- A product write's checked batch (catalog/store/batch.py): every precondition checked, then every
-- command applied, atomically. Every key is in KEYS (a command names its keys by position), so no key
-- name is built here; numbers travel as strings, so a score is never rounded on the way.
-- KEYS: every key the batch touches.
-- ARGV[1]: {"checks": [[kind, key position, ...]], "ops": [[command, [key positions], [args]]]}.
-- Replies {'ok'}, or the first failed check (nothing written) in the reply shape of every write script.
local spec = cjson.decode(ARGV[1])
for _, check in ipairs(spec.checks) do
  local kind, key = check[1], KEYS[check[2]]
  if kind == 'absent' then
    if redis.call('EXISTS', key) == 1 then return {'conflict', 'exists', key} end
  elseif kind == 'drawn' then
    if tonumber(redis.call('GET', key) or '0') < tonumber(check[3]) then return {'conflict', 'stale', key} end
  elseif kind == 'field' then
    local held = redis.call('HGET', key, check[3])
    if not held then return {'missing', key} end
    if held ~= check[4] then return {'conflict', 'changed', key} end
  elseif kind == 'owner' then
    local held = redis.call('HGET', key, check[3])
    if held and held ~= check[4] then
      return {'refused', 'sku', 'SKU ' .. check[3] .. ' is already used by product ' .. held .. '.'}
    end
  elseif kind == 'members' then
    if redis.call('ZCARD', key) ~= #check - 2 then return {'conflict', 'changed', key} end
    for i = 3, #check do
      if not redis.call('ZSCORE', key, check[i]) then return {'conflict', 'changed', key} end
    end
  end
end
for _, op in ipairs(spec.ops) do
  local args = {}
  for _, position in ipairs(op[2]) do args[#args + 1] = KEYS[position] end
  for _, value in ipairs(op[3]) do args[#args + 1] = value end
  if op[1] ~= 'ZREM_IF_EMPTY' then
    redis.call(op[1], unpack(args))
  elseif redis.call('SCARD', args[2]) == 0 then
    redis.call('ZREM', args[1], unpack(args, 3))
  end
end
return {'ok'}
