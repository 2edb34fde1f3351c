-- The first bucket of the expiry schedule (format 2) that holds members, among the buckets of past
-- minutes given, oldest first; read-only. Every key is in the slot of ns:expirations.
-- KEYS[1..]: buckets (sets), oldest first
-- ARGV[1]: how many members to return at most
-- Returns {index of the bucket in KEYS, members...} (at most ARGV[1] of them, any order), or {}
-- when every bucket given is empty.
local limit = tonumber(ARGV[1])
for i = 1, #KEYS do
  local members = redis.call('SRANDMEMBER', KEYS[i], limit)
  if #members > 0 then
    table.insert(members, 1, i)
    return members
  end
end
return {}
