-- Moves a session to a new id in one atomic call on its old key: the second step of an id renewal
-- (IdRenewal), after the session was written whole under the new id (save.lua, mode 'r'). The old
-- hash is replaced by an alias, a hash whose field '#>' names the new id and '#t' the end of the grace
-- (epoch milliseconds, compared with the caller's clock; the key's TTL drops it then): a
-- request still carrying the old id finds the session through it (SessionReader), and an update
-- loaded before the renewal is sent on to the new id (save.lua answers {-3, id}). Every other script
-- reads the alias as a missing session (it has no '#' field).
-- KEYS[1]: the session hash under its old id
-- ARGV[1]: now, epoch milliseconds (the application's clock)
-- ARGV[2]: the version the copy was made of
-- ARGV[3]: the new id, as it stands in a member (sealed under keyed names: SessionKeys.member)
-- ARGV[4]: the grace, milliseconds: how long the alias lives
-- ARGV[5] (optional): the absolute timeout, milliseconds
-- Returns '1' when it moved the session; '>' followed by the new id when another node renewed it
-- first (its alias is there; nothing is written); 'v' when the hash was written since the copy was
-- made (nothing is written: the copy is stale); '0' when the session is missing or expired.
-- The metadata field '#' holds 'creation:lastAccess:maxInactive:version'.
-- #include metadata.lua
local key = KEYS[1]
local meta = redis.call('HMGET', key, '#', '#>', '#t', '#f')
local c, a, m, v = metadata(meta[1])
local now = tonumber(ARGV[1])
if not readable(meta[4]) then
  return 'v' -- a later Redis format (metadata.lua): never moved by this version
end
if not v then
  if meta[2] and tonumber(meta[3] or '0') > now then
    return '>' .. meta[2]
  end
  return '0'
end
local maxInactive = tonumber(m)
local absolute = tonumber(ARGV[5] or '')
if (maxInactive >= 0 and tonumber(a) + maxInactive * 1000 <= now)
    or (absolute and tonumber(c) + absolute <= now) then
  return '0'
end
if v ~= ARGV[2] then
  return 'v'
end
redis.call('DEL', key)
redis.call('HSET', key, '#>', ARGV[3], '#t', string.format('%d', now + tonumber(ARGV[4])))
redis.call('PEXPIRE', key, math.max(1, tonumber(ARGV[4])))
return '1'
