-- Deletes one session hash if it has expired, in one atomic call. The expiry sweep calls it after it
-- claimed the id (ZREM answered 1), so that a save that landed between the sweep's first look and
-- this call (another node's clock, a touch, a longer timeout) keeps the session alive.
-- KEYS[1]: the session hash
-- ARGV[1]: now, epoch milliseconds (the sweeping node's clock)
-- Returns {'expired', c, a, m, p} when it deleted an expired session; {'gone', c, a, m, p} when the
-- hash was missing or incomplete (deleted if present; the values may be nil); {'live', a, m} when the
-- session is live again (nothing deleted); {'never'} when it no longer expires.
-- The metadata field '#' holds 'creation:lastAccess:maxInactive:version'.
-- #include metadata.lua
local key = KEYS[1]
local meta = redis.call('HMGET', key, '#', '#p')
local c, a, m, v = metadata(meta[1])
if not v then
  redis.call('DEL', key)
  return {'gone', false, false, false, meta[2]}
end
local maxInactive = tonumber(m)
if maxInactive < 0 then
  return {'never'}
end
if tonumber(a) + maxInactive * 1000 > tonumber(ARGV[1]) then
  return {'live', a, m}
end
redis.call('DEL', key)
return {'expired', c, a, m, meta[2]}
