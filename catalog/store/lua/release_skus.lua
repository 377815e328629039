-- Each SKU released where that product holds it.
-- KEYS[1]: the SKU index. ARGV: SKU, product id ...
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return {'ok'}
