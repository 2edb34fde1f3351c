-- Claims a session of Spring Session Data Redis for its take-over: deletes its hash when it is still
-- what the taking node loaded, so that nothing an SSDR node wrote after that load is deleted unseen.
-- One key: runs in the hash's own slot on a Cluster. See SpringSessionDataRedisMigration#claim.
-- KEYS[1]: SSDR's session hash
-- ARGV[1]: '1' to delete the hash even when it changed (the last attempt), '0' to keep it then
-- ARGV[2]: the digest of the hash as loaded: SHA-1 (hex) of, for each field in the order of ARGV[3..],
--          <length of name>:<name><length of value>:<value>
-- ARGV[3..]: the names of the fields of the hash as loaded
-- Returns {0} when the hash is missing; {1} when it was as loaded (deleted); else {2, hash} when it
-- changed (kept) or {3, hash} when it changed and ARGV[1] is '1' (deleted), with hash every field
-- and value as it was.
local key = KEYS[1]
local all = redis.call('HGETALL', key)
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
if same then
  redis.call('DEL', key)
  return {1}
end
if ARGV[1] == '1' then
  redis.call('DEL', key)
  return {3, all}
end
return {2, all}
