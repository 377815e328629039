-- Delete a post with everything that refers to it, if it is still as read.
-- KEYS: 1 post, 2 revisions, 3 comment set, 4 updated index, 5 title index,
--       6 draft index, 7 published index, 8 author's index, 9 events, 10 the authors index, 11.. the
--       title's piece sets (ARGV 9 of them), then the comment hashes.
-- ARGV: 1 version read, 2 author read, 3 author indexed ("1"/"0"), 4 title member,
--       5 post id, 6 event (JSON list), 7 events kept, 8 title read, 9 how many piece sets,
--       10 the author's member of the authors index, 11.. the comment ids read (as the KEYS after the
--       piece sets).
-- Replies: {"missing", post} | {"conflict"} (changed since the read: nothing written) | {"ok"}.
local post, comments = KEYS[1], KEYS[3]
local held = redis.call('HMGET', post, 'version', 'author', 'title')
if not held[1] then return {'missing', post} end
if held[1] ~= ARGV[1] or (held[2] or '') ~= ARGV[2] or (held[3] or '') ~= ARGV[8] then return {'conflict'} end
local ids = #ARGV - 10
if redis.call('ZCARD', comments) ~= ids then return {'conflict'} end
for i = 11, #ARGV do
  if not redis.call('ZSCORE', comments, ARGV[i]) then return {'conflict'} end
end
local id = ARGV[5]
local pieces = tonumber(ARGV[9])
for i = 11, 10 + pieces do redis.call('SREM', KEYS[i], id) end
redis.call('UNLINK', post, KEYS[2], comments)
for first = 11 + pieces, #KEYS, 1000 do
  redis.call('UNLINK', unpack(KEYS, first, math.min(first + 999, #KEYS)))
end
redis.call('ZREM', KEYS[4], id)
redis.call('ZREM', KEYS[5], ARGV[4])
redis.call('ZREM', KEYS[6], id)
redis.call('ZREM', KEYS[7], id)
if ARGV[3] == '1' then
  redis.call('ZREM', KEYS[8], id)
  if redis.call('ZCARD', KEYS[8]) == 0 then redis.call('ZREM', KEYS[10], ARGV[10]) end  -- their last post
end
local event = cjson.decode(ARGV[6])
redis.call('XADD', KEYS[9], 'MAXLEN', tonumber(ARGV[7]), '*', unpack(event))
return {'ok'}
