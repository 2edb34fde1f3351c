-- Deletes one session hash if it is still live, in one atomic call.
-- KEYS[1]: the session hash
-- ARGV[1]: now, epoch milliseconds (the application's clock)
-- ARGV[2] (optional): 'all' to also return every field of the deleted hash (an id change carries
--          them over to the new id), or ''
-- ARGV[3] (optional): the absolute timeout, milliseconds: a session whose creation + that timeout
--          is past counts as expired
-- Returns {c, a, m, p} of the deleted session (p may be nil), followed with 'all' by its fields and
-- values as HGETALL gives them (a pack in chunks is joined by the caller, see pack.lua); nil when
-- there was nothing live to delete, or the hash is in a Redis format this version does not read
-- ('#f', see metadata.lua: nothing is deleted). An expired session is left for the expiry sweep, so that it is
-- reported once, as expired.
-- The metadata field '#' holds 'creation:lastAccess:maxInactive:version'.
-- #include metadata.lua
local key = KEYS[1]
local meta = redis.call('HMGET', key, '#', '#p', '#f')
if not readable(meta[3]) then
  return nil -- a later Redis format reads as missing here, and is left to the nodes that read it
end
local c, a, m, v = metadata(meta[1])
if not v then
  -- The alias an id renewal left (renew.lua) stays for its grace: the session lives on elsewhere.
  if redis.call('HEXISTS', key, '#>') == 0 then
    redis.call('DEL', key)
  end
  return nil
end
local maxInactive = tonumber(m)
if maxInactive >= 0 and tonumber(a) + maxInactive * 1000 <= tonumber(ARGV[1]) then
  return nil
end
if ARGV[3] and tonumber(c) + tonumber(ARGV[3]) <= tonumber(ARGV[1]) then
  return nil
end
local answer = {c, a, m, meta[2]}
if ARGV[2] == 'all' then
  -- A loop, not unpack: a session may hold more fields than Lua's stack takes.
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields do
    answer[4 + i] = fields[i]
  end
end
redis.call('DEL', key)
return answer
