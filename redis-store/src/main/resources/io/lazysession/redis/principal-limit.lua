-- Admits a session among the live sessions of one principal, at most a limit of them, atomically:
-- the decision of lazysession.max-sessions-per-principal (docs/session-policies.md). Three keys of
-- one Cluster slot: the principal's set (what findByPrincipalName reads), its sign-in order, a
-- sorted set of the admitted ids by the time they signed in (this server's TIME, milliseconds),
-- and its recent admissions.
-- KEYS[1]: the principal set; KEYS[2]: the sign-in order; KEYS[3]: the recent admissions, a hash of
-- the ids admitted less than ARGV[8] ago: id -> '<admission time>', or '<time> <replaced id>' for
-- an id change or renewal (which keeps its old sign-in time in the order, and is still in flight
-- all the same); or '<time>!' for an id this script evicted or found dead (a tombstone): a move
-- from it, already on its way when it was evicted, is not a sign-in but a session that is gone.
-- While a new id is in flight, it and the id it replaces are one session (also through several new
-- ids: two renewals at once, or a renewal and an id change): counted once, by the oldest id it is
-- known by, never against the caller's own session, and evicted under all of its ids; the old id
-- does not join the order from the set while a new one is in the set.
-- ARGV[1]: the session id to admit, as it stands in a member (sealed under keyed names)
-- ARGV[2]: the id it replaces (the same session before an id change), or ''; as ARGV[1]
-- ARGV[3]: the limit (1 or more)
-- ARGV[4]: 'e' evict the oldest others, 'r' refuse the new one
-- ARGV[5]: how long the set must live from now, milliseconds, as in principal-add.lua (-1: no TTL);
--          '' leaves its TTL (a repository with expiry events: the sweep empties the set)
-- ARGV[6]: the same for the order, always given: an order that expires only loses who came first
-- ARGV[7]: '1' first attempt; '2' the caller checked the others the first attempt returned;
--          'm' an id renewal: ARGV[1] takes ARGV[2]'s sign-in time, both stay in the order (the
--          one that leaves the set leaves it next time), nothing is evicted nor refused: {1}
-- ARGV[8]: how long an admitted id whose session the caller did not find counts as live anyway
--          (a sign-in still being written), milliseconds
-- ARGV[9]: the number N of ids the caller found dead (expired); then those N ids; then the ids it
--          did not find live (no hash, or another principal), removed only when they signed in and
--          were admitted longer than ARGV[8] ago
-- Ids in the order but not in the set were deleted, expired or signed out: they leave the order.
-- Ids in the set but not in the order (signed in before the limit was on, or the order expired)
-- join it as the oldest, at 0; an admission never writes 0 (at least 1), so that a sign-in evicted
-- while it was written, whose id came back to the set (its writer adds it) and joined from there,
-- still sees after its write that it was not admitted (SessionLimiter.afterWrite).
-- Returns {1} admitted (or already was), {0, id, score, ...} over the limit on a first attempt
-- (nothing written but the two clean-ups: the caller checks those ids and calls again), {-1}
-- refused, {2, id, ...} admitted after evicting those ids, {-2} the id it replaces was evicted
-- (or found dead) less than ARGV[8] ago: nothing admitted, the caller writes nothing.
-- #include keep-alive.lua
redis.replicate_commands()
local set, order, admissions = KEYS[1], KEYS[2], KEYS[3]
local id, replaced, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local grace = tonumber(ARGV[8])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local setFresh = redis.call('EXISTS', set) == 0
local orderFresh = redis.call('EXISTS', order) == 0
local move = ARGV[7] == 'm'
-- Whether the replaced id is one of this principal's sessions (not an anonymous session signing
-- in, nor another principal's): only then is the new id the same session of this principal.
local linked = replaced ~= '' and (redis.call('SISMEMBER', set, replaced) == 1
    or redis.call('ZSCORE', order, replaced) ~= false)

local recent, replacing, replacedBy, gone = {}, {}, {}, {}
local entries = redis.call('HGETALL', admissions)
for i = 1, #entries, 2 do
  local at, old = string.match(entries[i + 1], '^(%d+) ?(.*)$')
  local removed = string.match(entries[i + 1], '^(%d+)!$')
  if not at or tonumber(at) + grace <= now then
    redis.call('HDEL', admissions, entries[i])
  elseif removed then
    gone[entries[i]] = true
  else
    recent[entries[i]] = true
    if old ~= '' then
      replacing[entries[i]] = old
      replacedBy[old] = replacedBy[old] or {}
      table.insert(replacedBy[old], entries[i])
    end
  end
end
local function inFlight(member)
  return recent[member] == true
end
-- One session, whatever ids it is being moved through: the oldest id it is known by.
local function root(member)
  local seen = {}
  while replacing[member] and not seen[replacing[member]] do
    seen[member] = true
    member = replacing[member]
  end
  return member
end
-- Whether an id that an id in flight replaces is still in the set, through that new id.
local function movedOn(member)
  for _, new in ipairs(replacedBy[member] or {}) do
    if redis.call('SISMEMBER', set, new) == 1 then
      return true
    end
  end
  return false
end

for _, member in ipairs(redis.call('ZRANGE', order, 0, -1)) do
  if redis.call('SISMEMBER', set, member) == 0 then
    redis.call('ZREM', order, member)
  end
end
for _, member in ipairs(redis.call('SMEMBERS', set)) do
  if member ~= id and (move or member ~= replaced) and not movedOn(member)
      and not redis.call('ZSCORE', order, member) then
    redis.call('ZADD', order, 0, member)
  end
end

-- Takes an id out; leaves its tombstone for a move from it that is already on its way.
local function remove(member)
  redis.call('ZREM', order, member)
  redis.call('SREM', set, member)
  redis.call('HSET', admissions, member, now .. '!')
  redis.call('PEXPIRE', admissions, 2 * grace)
end

-- The sessions of the order other than the caller's own (by root: one session being moved
-- through several ids counts once), oldest first.
local mine = {[root(id)] = true}
if replaced ~= '' then
  mine[root(replaced)] = true
end
local function otherSessions()
  local seen, sessions = {}, {}
  for _, member in ipairs(redis.call('ZRANGE', order, 0, -1)) do
    local session = root(member)
    if not mine[session] and not seen[session] then
      seen[session] = true
      table.insert(sessions, session)
    end
  end
  return sessions
end

-- Removes a session under every id it is known by (its root and the ids in flight from it).
local function removeSession(session, evicted)
  local ids, done = {session}, {}
  while #ids > 0 do
    local member = table.remove(ids)
    if not done[member] and member ~= id and member ~= replaced and not mine[root(member)] then
      done[member] = true
      remove(member)
      table.insert(evicted, member)
      for _, new in ipairs(replacedBy[member] or {}) do
        table.insert(ids, new)
      end
    end
  end
end

if ARGV[7] == '2' then
  local dead = tonumber(ARGV[9])
  for i = 10, #ARGV do
    if i < 10 + dead then
      remove(ARGV[i])
    else
      local score = redis.call('ZSCORE', order, ARGV[i])
      if score and tonumber(score) + grace <= now and not inFlight(ARGV[i]) then
        remove(ARGV[i])
      end
    end
  end
end

local function keepBothAlive()
  if ARGV[5] ~= '' then
    keepAlive(set, tonumber(ARGV[5]), setFresh)
  end
  keepAlive(order, tonumber(ARGV[6]), orderFresh)
end

local function admitted()
  redis.call('HSET', admissions, id, linked and (now .. ' ' .. replaced) or tostring(now))
  redis.call('PEXPIRE', admissions, 2 * grace)
end

local function admit(signedIn)
  redis.call('ZADD', order, math.max(tonumber(signedIn), 1), id)
  redis.call('SADD', set, id)
  admitted() -- the replaced id stays in the order, one session with this one, until it leaves the set
  keepBothAlive()
end

if replaced ~= '' and gone[replaced] then
  return {-2}
end
local own = redis.call('ZSCORE', order, id)
if own then
  if tonumber(own) < 1 then
    redis.call('ZADD', order, 1, id) -- joined from the set: admitted now, still the oldest
  end
  admitted()
  keepBothAlive()
  return {1}
end
if move then
  redis.call('ZADD', order, redis.call('ZSCORE', order, replaced) or now, id)
  redis.call('SADD', set, id)
  admitted()
  keepBothAlive()
  return {1}
end
local inherited = replaced ~= '' and redis.call('ZSCORE', order, replaced)
local sessions = otherSessions()
local others = #sessions
if others < limit then
  admit(inherited or now)
  return {1}
end
if ARGV[7] ~= '2' then
  local reply = {0}
  for _, entry in ipairs(redis.call('ZRANGE', order, 0, -1, 'WITHSCORES')) do
    table.insert(reply, entry)
  end
  return reply
end
if ARGV[4] == 'r' then
  return {-1}
end
local evicted = {2}
for _, session in ipairs(sessions) do
  if others < limit then
    break
  end
  removeSession(session, evicted)
  others = others - 1
end
admit(inherited or now)
return evicted
