-- find.lua, falling back in the same call to the session Spring Session Data Redis keeps for the same
-- id (standalone and Sentinel only: on a Cluster the keys are never in one slot, and the fallback is
-- a second call instead, find-ssdr-only.lua). See SpringSessionDataRedisMigration.
-- KEYS[1], ARGV: as find.lua
-- KEYS[2]: Spring Session Data Redis's session hash
-- KEYS[3]: its claim key (see claim-ssdr.lua): what a take-over that did not finish left there
-- Returns find.lua's answer when it has one; otherwise nil when neither KEYS[2] nor KEYS[3] holds the
-- session, and else {'#ssdr', {every field and value of KEYS[2], or else of KEYS[3]}}.
local function find()
-- #include find.lua
end
local answer = find()
if answer then
  return answer
end
local ssdr = redis.call('HGETALL', KEYS[2])
if #ssdr == 0 and redis.call('HEXISTS', KEYS[3], '#deleted') == 0 then
  ssdr = redis.call('HGETALL', KEYS[3])
end
if #ssdr == 0 then
  return nil
end
return {'#ssdr', ssdr}
