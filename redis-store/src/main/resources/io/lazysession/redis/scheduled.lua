-- When one member is due by the expiry schedule, looking in ns:expirations (format 1) and in the
-- buckets given (format 2). Every key is in the slot of ns:expirations (ExpiryBuckets).
-- KEYS[1]: ns:expirations; KEYS[2..]: buckets (sets) of consecutive minutes, the first one's first
-- ARGV[1]: the member
-- ARGV[2]: the minute of KEYS[2] (epoch milliseconds / 60000)
-- Returns the due time in epoch milliseconds: its score in ns:expirations, else the last millisecond
-- of the first bucket holding it; nil when it is in none.
local member = ARGV[1]
local score = redis.call('ZSCORE', KEYS[1], member)
if score then
  return math.floor(tonumber(score))
end
for i = 2, #KEYS do
  if redis.call('SISMEMBER', KEYS[i], member) == 1 then
    return (tonumber(ARGV[2]) + i - 1) * 60000 - 1
  end
end
return nil
