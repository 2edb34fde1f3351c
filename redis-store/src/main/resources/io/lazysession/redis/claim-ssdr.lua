-- Claims a session of Spring Session Data Redis for its take-over: moves its hash to the claim key
-- when it is still what the taking node loaded, so that nothing an SSDR node wrote after that load is
-- removed unseen, and so that the session is never in neither place (the claim key holds it until
-- the take-over is done; finds read it). See SpringSessionDataRedisMigration#claim.
-- KEYS[1]: SSDR's session hash
-- KEYS[2]: the claim key, in the same slot (its hash tag is KEYS[1]'s)
-- ARGV[1]: '1' to move the hash even when it changed (the last attempt), '0' to keep it then
-- ARGV[2]: the digest of the hash as loaded: SHA-1 (hex) of, for each field in the order of ARGV[3..],
--          <length of name>:<name><length of value>:<value>
-- ARGV[3..]: the names of the fields of the hash as loaded
-- Returns {0} when there is nothing to take over (no hash, or a delete marked the claim key);
-- {1} when the hash was as loaded (moved); {2, hash} when it changed (kept); {3, hash} when it changed
-- and ARGV[1] is '1' (moved); {4, hash} when another call claimed it first and the take-over is not
-- done yet: hash is every field and value of the session as claimed.
local ssdr = KEYS[1]
local claim = KEYS[2]
local claimed = redis.call('HGETALL', claim)
if #claimed > 0 then
  if redis.call('HEXISTS', claim, '#deleted') == 1 then
    return {0}
  end
  return {4, claimed}
end
local all = redis.call('HGETALL', ssdr)
if #all == 0 then
  return {0}
end
local same = false
if #all / 2 == #ARGV - 2 then
  local values = {}
  for i = 1, #all, 2 do
    values[all[i]] = all[i + 1]
  end
  local parts = {}
  same = true
  for i = 3, #ARGV do
    local value = values[ARGV[i]]
    if not value then
      same = false
      break
    end
    parts[#parts + 1] = #ARGV[i] .. ':' .. ARGV[i] .. #value .. ':' .. value
  end
  same = same and redis.sha1hex(table.concat(parts)) == ARGV[2]
end
if not same and ARGV[1] ~= '1' then
  return {2, all}
end
-- RENAME keeps the hash's TTL: the claim key lives as long as SSDR would have kept the session.
redis.call('RENAME', ssdr, claim)
if same then
  return {1}
end
return {3, all}
