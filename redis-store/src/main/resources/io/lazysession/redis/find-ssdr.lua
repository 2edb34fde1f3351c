-- find.lua, falling back in the same call to the session hash Spring Session Data Redis keeps for the
-- same id (standalone and Sentinel only: on a Cluster the two keys are never in one slot, and the
-- fallback is a second command instead). See SpringSessionDataRedisMigration.
-- KEYS[1], ARGV: as find.lua
-- KEYS[2]: Spring Session Data Redis's session hash
-- Returns find.lua's answer when it has one; otherwise nil when KEYS[2] is missing too, and else
-- {'#ssdr', {every field and value of KEYS[2]}}.
local function find()
-- #include find.lua
end
local answer = find()
if answer then
  return answer
end
local ssdr = redis.call('HGETALL', KEYS[2])
if #ssdr == 0 then
  return nil
end
return {'#ssdr', ssdr}
