-- Creates a session hash from a session taken over from Spring Session Data Redis, unless the key
-- already exists (another node took it over first). Same metadata field ('#': creation, last access,
-- max inactive, version 1) and TTL rule as a create by save.lua.
-- KEYS[1]: the session hash
-- ARGV[1]: now, epoch milliseconds (the application's clock)
-- ARGV[2]: creation time, epoch milliseconds
-- ARGV[3]: last access time, epoch milliseconds
-- ARGV[4]: max inactive interval, seconds; negative means never expires
-- ARGV[5]: grace, milliseconds, kept on top of the inactive interval before Redis drops the hash;
--          with an absolute timeout, followed by ':' and that timeout in milliseconds: the TTL never
--          outlasts creation + that timeout (+ grace), also for a session that never idles out
-- ARGV[6..]: attribute field / envelope pairs (and, under a keyed name, #i and the sealed id)
-- Returns 1 when this call created the hash (version 1), 0 when the key existed (nothing written).
local key = KEYS[1]
if redis.call('EXISTS', key) == 1 then
  return 0
end
redis.call('HSET', key, '#', ARGV[2] .. ':' .. ARGV[3] .. ':' .. ARGV[4] .. ':1')
-- In chunks, as save.lua: unpack fails beyond Lua's stack limit.
local chunk = 1000
local i = 6
while i <= #ARGV do
  local last = math.min(i + chunk - 1, #ARGV)
  redis.call('HSET', key, unpack(ARGV, i, last))
  i = last + 1
end
local maxInactive = tonumber(ARGV[4])
local graceText, absoluteText = string.match(ARGV[5], '^([^:]*):?(.*)$')
local absolute = tonumber(absoluteText) -- nil: no absolute timeout
local due = absolute and tonumber(ARGV[2]) + absolute
if maxInactive >= 0 then
  local idleDue = tonumber(ARGV[3]) + maxInactive * 1000
  if not due or idleDue < due then
    due = idleDue
  end
end
if due then
  local ttl = due + tonumber(graceText) - tonumber(ARGV[1])
  if ttl < 1 then
    ttl = 1
  end
  redis.call('PEXPIRE', key, ttl)
end
return 1
