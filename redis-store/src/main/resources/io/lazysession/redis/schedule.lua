-- Puts one member on the expiry schedule of Redis format 2 (per-minute sets), in one atomic call.
-- Every key is in the slot of the format 1 schedule, ns:expirations (ExpiryBuckets), so that a
-- Cluster runs it on one node.
-- KEYS[1]: ns:expirations, the sorted set of format 1
-- KEYS[2]: the bucket (a set) of the minute the member is due in
-- KEYS[3] (optional): the bucket the member is in now (a sweep that found the session live with a
--          later due time): moved from there with SMOVE, only if it is still there
-- ARGV[1]: the member (a session id, sealed with encryption keys)
-- ARGV[2]: when Redis is to drop the bucket of KEYS[2], epoch milliseconds: the end of its minute
--          plus the sweep's look-back (a bucket of a minute already past that long is given that
--          long from now instead), so that a bucket nobody swept does not stay for ever
-- ARGV[3]: without KEYS[3], 'add': the member leaves ns:expirations if it is there, and joins
--          KEYS[2]; 'zset': the same, only if it was in ns:expirations (a sweep of ns:expirations
--          that found the session live moves it to the buckets, unless another call claimed it)
-- Returns 1 when the member was put in KEYS[2], 0 when nothing changed.
local member = ARGV[1]
if KEYS[3] then
  if redis.call('SMOVE', KEYS[3], KEYS[2], member) == 0 then
    return 0
  end
else
  local removed = redis.call('ZREM', KEYS[1], member)
  if removed == 0 and ARGV[3] == 'zset' then
    return 0
  end
  redis.call('SADD', KEYS[2], member)
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local dropAt = tonumber(ARGV[2])
if dropAt <= now then
  dropAt = now + 3600000
end
redis.call('PEXPIREAT', KEYS[2], dropAt)
return 1
