-- Every SKU taken for its product, or none: refused for the first held by another product.
-- KEYS[1]: the SKU index. ARGV: SKU, product id, SKU, product id ...
for i = 1, #ARGV, 2 do
  local held = redis.call('HGET', KEYS[1], ARGV[i])
  if held and held ~= ARGV[i + 1] then
    return {'refused', 'sku', 'SKU ' .. ARGV[i] .. ' is already used by product ' .. held .. '.'}
  end
end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return {'ok'}
