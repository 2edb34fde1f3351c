-- Deletes one session hash if it is still live, in one atomic call.
-- KEYS[1]: the session hash
-- ARGV[1]: now, epoch milliseconds (the application's clock)
-- ARGV[2] (optional): 'all' to also return every field of the deleted hash (an id change carries
--          them over to the new id)
-- Returns {c, a, m, p} of the deleted session (p may be nil), followed with 'all' by its fields and
-- values as HGETALL gives them; nil when there was nothing live to delete. An expired session is left
-- for the expiry sweep, so that it is reported once, as expired.
local key = KEYS[1]
local meta = redis.call('HMGET', key, '#c', '#a', '#m', '#p', '#v')
if not meta[2] or not meta[3] or not meta[5] then
  redis.call('DEL', key)
  return nil
end
local maxInactive = tonumber(meta[3])
if maxInactive >= 0 and tonumber(meta[2]) + maxInactive * 1000 <= tonumber(ARGV[1]) then
  return nil
end
local answer = {meta[1], meta[2], meta[3], meta[4]}
if ARGV[2] == 'all' then
  -- A loop, not unpack: a session may hold more fields than Lua's stack takes.
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields do
    answer[4 + i] = fields[i]
  end
end
redis.call('DEL', key)
return answer
