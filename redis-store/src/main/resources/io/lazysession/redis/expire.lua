-- Deletes one session hash if it has expired, in one atomic call. The expiry sweep calls it after it
-- claimed the id (ZREM answered 1), so that a save that landed between the sweep's first look and
-- this call (another node's clock, a touch, a longer timeout) keeps the session alive.
-- KEYS[1]: the session hash
-- ARGV[1]: now, epoch milliseconds (the sweeping node's clock)
-- ARGV[2] (optional): 'all' to also return every field of an expired hash (for the expired event's
--          session; a pack in chunks is joined by the caller, see pack.lua), or ''
-- ARGV[3] (optional): the absolute timeout, milliseconds: a session is also expired once its
--          creation + that timeout is past, whatever its last access
-- Returns {'expired', c, a, m, p} when it deleted an expired session, followed with 'all' by its
-- fields and values as HGETALL gives them; {'gone', c, a, m, p} when the
-- hash was missing or incomplete (deleted if present; the values may be nil); {'live', a, m, c} when
-- the session is live again (nothing deleted); {'never'} when it no longer expires; {'later'} when
-- the hash is in a Redis format this version does not read ('#f', metadata.lua): nothing deleted.
-- The metadata field '#' holds 'creation:lastAccess:maxInactive:version'.
-- #include metadata.lua
local key = KEYS[1]
local meta = redis.call('HMGET', key, '#', '#p', '#f')
if not readable(meta[3]) then
  return {'later'} -- a later Redis format (metadata.lua): left to the nodes that read it
end
local c, a, m, v = metadata(meta[1])
if not v then
  -- The alias an id renewal left (renew.lua) stays for its grace: the session lives on elsewhere.
  if redis.call('HEXISTS', key, '#>') == 0 then
    redis.call('DEL', key)
  end
  return {'gone', false, false, false, meta[2]}
end
local maxInactive = tonumber(m)
local now = tonumber(ARGV[1])
local absolute = tonumber(ARGV[3])
local pastDeadline = absolute ~= nil and tonumber(c) + absolute <= now
if maxInactive < 0 and not absolute then
  return {'never'}
end
if not pastDeadline and (maxInactive < 0 or tonumber(a) + maxInactive * 1000 > now) then
  return {'live', a, m, c}
end
local answer = {'expired', c, a, m, meta[2]}
if ARGV[2] == 'all' then
  -- A loop, not unpack: a session may hold more fields than Lua's stack takes.
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields do
    answer[5 + i] = fields[i]
  end
end
redis.call('DEL', key)
return answer
