-- Reads the session Spring Session Data Redis holds for an id: its hash, or else what a take-over
-- that did not finish left in the claim key (see claim-ssdr.lua). Used on a Cluster, where this pair
-- of keys is never in the slot of lazysession's key for the same id.
-- KEYS[1]: SSDR's session hash
-- KEYS[2]: the claim key, in the same slot
-- Returns every field and value, or an empty list when there is neither (or a delete marked it).
local hash = redis.call('HGETALL', KEYS[1])
if #hash > 0 then
  return hash
end
if redis.call('HEXISTS', KEYS[2], '#deleted') == 1 then
  return {}
end
return redis.call('HGETALL', KEYS[2])
