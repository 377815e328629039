-- The history page: the current version's fields, the number of revisions and one page of them,
-- newest first, each cut in the script to the fields a history row shows, so the reply carries
-- no body and the client decodes no JSON. KEYS: 1 post, 2 revisions. ARGV: 1 first rank, 2 last
-- rank, then the post fields read (HMGET), "version" among them at ARGV 3 (its absence: no post).
-- Reply: false (no post) | {the post's fields..., revision count, then per revision: version,
-- updated_at, last_saved_by, comment, changed, title, author, status}. A field a snapshot lacks is "".
local reply = redis.call('HMGET', KEYS[1], unpack(ARGV, 3))
if not reply[1] then return false end
local n = #ARGV - 2
reply[n + 1] = redis.call('ZCARD', KEYS[2])
n = n + 1
for _, raw in ipairs(redis.call('ZREVRANGE', KEYS[2], ARGV[1], ARGV[2])) do
  local s = cjson.decode(raw)
  reply[n + 1], reply[n + 2], reply[n + 3] = s.version or '', s.updated_at or '', s.last_saved_by or ''
  reply[n + 4], reply[n + 5], reply[n + 6] = s.comment or '', s.changed or '', s.title or ''
  reply[n + 7], reply[n + 8] = s.author or '', s.status or ''
  n = n + 8
end
return reply
