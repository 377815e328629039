-- The candidates of an ordered search, in the order index's order, in bounded steps (after sort.lua).
-- KEYS: the order index, each piece's set, a scratch sorted set. ARGV: the candidates wanted, INTERSECT_LIMIT,
-- WALK_LIMIT, "1" for the ids alone (else each id and its name, as SORT ... GET # GET record:*->field
-- answers), the rank the walk goes on from (0 at first), WALK_STEP, then the GET patterns. A rare piece
-- (its set holds at most ARGV[2] ids): ZINTERSTORE of the index with every piece, which walks the rarest,
-- then the first ids. A common one: the index walked in windows of 256 ids, each window narrowed by
-- SMISMEMBER of every piece (rarest first), until enough are found or ARGV[3] ids are walked in all, ARGV[6]
-- ids a call: the caller calls again from where a call stopped. Answers 1 when the walk stopped at its
-- budget before the index's end (more may match), the rank to go on from (0: no further call), and the ids
-- (or ids and names) found, the next part of the whole answer in order.
local order, scratch = KEYS[1], KEYS[#KEYS]
local want, small, budget = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local from, step = tonumber(ARGV[5]), tonumber(ARGV[6])
local gets = {}
for i = 7, #ARGV do gets[#gets + 1] = ARGV[i] end
local pieces = {}
for i = 2, #KEYS - 1 do pieces[#pieces + 1] = {KEYS[i], redis.call('SCARD', KEYS[i])} end
table.sort(pieces, function(a, b) return a[2] < b[2] end)
local ids, stopped, resume = {}, 0, 0
if pieces[1][2] == 0 then
  ids = {}
elseif from == 0 and pieces[1][2] <= small then
  local args = {'ZINTERSTORE', scratch, #pieces + 1, order}
  for _, piece in ipairs(pieces) do args[#args + 1] = piece[1] end
  args[#args + 1] = 'WEIGHTS'
  args[#args + 1] = 1
  for _ = 1, #pieces do args[#args + 1] = 0 end
  redis.call(unpack(args))
  ids = redis.call('ZRANGE', scratch, 0, want - 1)
  redis.call('UNLINK', scratch)
else
  local at, size = from, redis.call('ZCARD', order)
  while #ids < want and at < size do
    if at >= budget then stopped = 1 break end
    if at >= from + step then resume = at break end
    local batch = redis.call('ZRANGE', order, at, at + math.min(256, budget - at, from + step - at) - 1)
    at = at + #batch
    for _, piece in ipairs(pieces) do
      if #batch == 0 then break end
      local held, kept = redis.call('SMISMEMBER', piece[1], unpack(batch)), {}
      for n, one in ipairs(held) do
        if one == 1 then kept[#kept + 1] = batch[n] end
      end
      batch = kept
    end
    for _, id in ipairs(batch) do
      if #ids < want then ids[#ids + 1] = id end
    end
  end
end
if ARGV[4] == '1' then return {stopped, resume, ids} end
return {stopped, resume, rows_of(ids, gets)}
