-- Takes one member off the expiry schedule: off ns:expirations (format 1) and off each bucket given
-- (format 2), in one atomic call. Every key is in the slot of ns:expirations (ExpiryBuckets).
-- KEYS[1]: ns:expirations; KEYS[2..]: buckets (sets) the member may be in
-- ARGV[1]: the member
-- Returns {removed from ns:expirations (0 or 1), buckets it was removed from}.
local member = ARGV[1]
local zset = redis.call('ZREM', KEYS[1], member)
local sets = 0
for i = 2, #KEYS do
  sets = sets + redis.call('SREM', KEYS[i], member)
end
return {zset, sets}
