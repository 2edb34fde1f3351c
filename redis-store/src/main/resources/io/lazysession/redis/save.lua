-- Writes the changes of one session in one atomic call.
-- KEYS[1]: the session hash
-- KEYS[2]: optional, the mark of this save ('<hash>:w:<writer>.<n>', tracked reads): written and
--          deleted after the changes, so that the invalidation Redis pushes for this save names it
--          (TrackingConnection); nothing is left under it
-- ARGV[1]: 'u' update an existing session, 'n' create it (the key must not exist), 'r' create it as a
--          session that moved here from another id (an id renewal or change): as 'n', and the field
--          '#r' records ARGV[2] as when this id was issued (the next renewal counts from there)
-- ARGV[2]: now, epoch milliseconds (the application's clock)
-- ARGV[3]: creation time, epoch milliseconds (used when creating)
-- ARGV[4]: last access time, epoch milliseconds (the stored one only ever moves forward)
-- The metadata field '#' holds 'creation:lastAccess:maxInactive:version' (ASCII decimal numbers);
-- every call that writes bumps the version (an update by the step ARGV[10]).
-- ARGV[5]: max inactive interval, seconds; negative means never expires; '' (update only) keeps the
--          stored one, so a request that did not change it never undoes another node's change
-- ARGV[6]: grace, milliseconds, kept on top of the inactive interval before Redis drops the hash;
--          with an absolute timeout, followed by ':' and that timeout in milliseconds: a session
--          whose creation + that timeout is past is expired, and its TTL never outlasts it (+ grace)
-- ARGV[7]: principal: '' unchanged, '-' none, '=' followed by the name to store
-- ARGV[8]: the pack (the small attributes together; stored whole or in chunks, see pack.lua): ''
--          leaves it as it is; else '=' followed by the SHA-1 (hex) of the pack this request loaded
--          ('=' alone: none). An update writes only when the hash still holds exactly that pack
-- ARGV[9]: the new pack ('' deletes it), when ARGV[8] is not ''
-- ARGV[10]: what an update adds to the stored version (1 or more, random: two writes made on one
--           version by two nodes, one of them lost in a failover, give two versions)
-- ARGV[11]: number N of fields to set; then N field/value pairs; then the fields to delete
-- Returns the new version; 0 when an update finds the session missing, partial, expired or in a
-- Redis format this version does not read ('#f', see metadata.lua) (nothing
-- is written, so a session deleted meanwhile is not resurrected); {-3, id} when an update finds the
-- alias an id renewal left within its grace ('#>': the new id, '#t': the grace's end, see renew.lua):
-- nothing is written, the caller sends its update to that id; -1 when creating over an existing key
-- of another creation time. A create whose key exists with the same creation time was already applied
-- (a re-send): 1 when nothing was written since, 0 when something was. {-2, pack} when an update finds
-- another pack than the one it was made from (nothing is written; {-2} when the hash has none): the
-- caller applies its changes to that pack and sends the save again.
-- #include metadata.lua
-- #include pack.lua
-- Writes are replicated as their effects (the default since Redis 5, the only way since 7): the
-- pack's placement reads OBJECT ENCODING, which a verbatim-replicated script may not do before writing.
redis.replicate_commands()
local key = KEYS[1]
local now = tonumber(ARGV[2])
-- Numbers are written back as the strings they came in: Lua would print large ones in %.14g.
local lastAccessText = ARGV[4]
local lastAccess = tonumber(lastAccessText)
local maxInactiveText = ARGV[5]
local creationText = ARGV[3]
local graceText, absoluteText = string.match(ARGV[6], '^([^:]*):?(.*)$')
local grace = tonumber(graceText)
local absolute = tonumber(absoluteText) -- nil: no absolute timeout
local version = 1
local packBefore -- the pack's fields as the update's check read them
if ARGV[1] == 'u' then
  local meta = redis.call('HMGET', key, '#', '#f')
  if not readable(meta[2]) then
    return 0 -- a later Redis format: this version never writes over it
  end
  local c, a, m, v = metadata(meta[1])
  if not v then
    local alias = redis.call('HMGET', key, '#>', '#t')
    if alias[1] and tonumber(alias[2] or '0') > now then
      return {-3, alias[1]}
    end
    return 0
  end
  local storedAccess = tonumber(a)
  local storedMax = tonumber(m)
  if storedMax >= 0 and storedAccess + storedMax * 1000 <= now then
    return 0
  end
  if absolute and tonumber(c) + absolute <= now then
    return 0
  end
  if storedAccess > lastAccess then
    lastAccess = storedAccess
    lastAccessText = a
  end
  creationText = c
  version = tonumber(v) + tonumber(ARGV[10])
  if maxInactiveText == '' then
    maxInactiveText = m
  end
  if ARGV[8] ~= '' then
    packBefore = packStored(key)
    local pack = packJoined(packBefore)
    if ARGV[8] ~= '=' .. (pack and redis.sha1hex(pack) or '') then
      if pack then
        return {-2, pack}
      end
      return {-2}
    end
  end
else
  if redis.call('EXISTS', key) == 1 then
    -- The same create arriving twice (Lettuce re-sends a command whose answer a dropped connection
    -- lost) finds its own creation time: success, never a duplicate id. Version 1 means nothing was
    -- written since, so the hash is exactly this create's; 0 means other writes followed.
    local c, a, m, v = metadata(redis.call('HGET', key, '#'))
    if c == ARGV[3] then
      if v == '1' then
        return 1
      end
      return 0
    end
    return -1
  end
  packBefore = {} -- a new key: no pack field
end
local maxInactive = tonumber(maxInactiveText)
local principal = ARGV[7]
if principal == '-' then
  redis.call('HDEL', key, '#p')
elseif principal ~= '' then
  redis.call('HSET', key, '#p', string.sub(principal, 2))
end
-- HSET and HDEL in chunks: unpack fails beyond Lua's stack limit (about 8000 values), and a
-- session may hold thousands of attributes. A chunk is an even number of arguments, so the field /
-- value pairs stay together.
local chunk = 1000
local setEnd = 11 + tonumber(ARGV[11]) * 2
local i = 12
while i <= setEnd do
  local last = math.min(i + chunk - 1, setEnd)
  redis.call('HSET', key, unpack(ARGV, i, last))
  i = last + 1
end
while i <= #ARGV do
  local last = math.min(i + chunk - 1, #ARGV)
  redis.call('HDEL', key, unpack(ARGV, i, last))
  i = last + 1
end
redis.call('HSET', key, '#', creationText .. ':' .. lastAccessText .. ':' .. maxInactiveText .. ':'
  .. string.format('%d', version))
if ARGV[1] == 'r' then
  redis.call('HSET', key, '#r', ARGV[2])
end
-- The pack last: whether it goes in chunks depends on what the hash holds once the rest is written.
-- An update that leaves it but sets fields or a principal may have made the hash a hashtable: its
-- chunks are then joined.
if ARGV[8] ~= '' then
  packWrite(key, ARGV[9], packBefore)
elseif ARGV[1] == 'u' and (ARGV[11] ~= '0' or string.sub(principal, 1, 1) == '=') then
  packSettle(key)
end
local deadline = absolute and tonumber(creationText) + absolute
if maxInactive < 0 and not deadline then
  redis.call('PERSIST', key)
else
  local due = deadline
  if maxInactive >= 0 then
    due = lastAccess + maxInactive * 1000
    if deadline and deadline < due then
      due = deadline
    end
  end
  local ttl = due + grace - now
  if ttl < 1 then
    ttl = 1
  end
  redis.call('PEXPIRE', key, ttl)
end
if KEYS[2] then
  redis.call('HSET', KEYS[2], '', '') -- HSET and DEL: commands the store's ACL user has anyway
  redis.call('DEL', KEYS[2])
end
return version
