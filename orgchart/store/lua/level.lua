-- KEYS: report sets. ARGV: the most ids one SUNION reads. Their members, read by one SUNION of at
-- most that many ids after a SCARD each: one JSON array of three lists, the ids found, the sets
-- larger than that (for SSCAN) and those left for another call.
local wide, found, large, left, batch, total = tonumber(ARGV[8]), {}, {}, {}, {}, 0
for _, key in ipairs(KEYS) do
  local n = redis.call('SCARD', key)
  if n > wide then
    large[#large + 1] = '"' .. key .. '"'
  elseif n > 0 then
    if total + n > wide then
      left[#left + 1] = '"' .. key .. '"'
    else
      batch[#batch + 1], total = key, total + n
    end
  end
end
if #batch > 0 then found = redis.call('SUNION', unpack(batch)) end
return '[[' .. table.concat(found, ',') .. '],[' .. table.concat(large, ',') .. '],[' .. table.concat(left, ',') .. ']]'
