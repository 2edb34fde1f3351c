-- The TTL of an index key (a principal set, a sign-in order) that must live at least as long as
-- the sessions it names. Included (see RedisScript) by principal-add.lua and principal-limit.lua.
-- keepAlive(key, ttl, fresh): ttl in milliseconds, negative for no TTL (a session that never
-- expires: PERSIST); fresh: the key did not exist before this script wrote it (PEXPIRE). Else a TTL
-- only grows (a session with a shorter timeout never cuts the key short for a longer one), and a
-- key without one keeps none: what PEXPIRE's GT option does, which Redis 6.2 lacks (-1 counts as
-- forever).
local function keepAlive(key, ttl, fresh)
  if ttl < 0 then
    redis.call('PERSIST', key)
  elseif fresh then
    redis.call('PEXPIRE', key, ttl)
  else
    local current = redis.call('PTTL', key)
    if current >= 0 and current < ttl then
      redis.call('PEXPIRE', key, ttl)
    end
  end
end
