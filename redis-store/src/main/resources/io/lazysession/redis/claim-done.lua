-- Ends a take-over from Spring Session Data Redis once the session is written in lazysession's
-- layout: removes the claim key, unless a delete marked it meanwhile. See
-- SpringSessionDataRedisMigration#claimDone.
-- KEYS[1]: the claim key
-- Returns 1 when a delete marked the claim key (the session must not live on), else 0.
if redis.call('HEXISTS', KEYS[1], '#deleted') == 1 then
  return 1
end
redis.call('DEL', KEYS[1])
return 0
