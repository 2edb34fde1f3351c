-- Seals values of one session hash anew under the current key (LazyRedisSessionRepository#reencrypt),
-- each only if the hash still holds the bytes it was read with: a save meanwhile wrote that value
-- anew, under the current key already, and is never undone. Writes nothing on a missing hash.
-- The version is not bumped: every value reads as the same plaintext as before.
-- KEYS[1]: the session hash
-- ARGV[1]: '' to leave the pack; else '=' followed by the SHA-1 (hex) of the pack as read
-- ARGV[2]: the pack sealed anew (when ARGV[1] is not '')
-- ARGV[3..]: field, value as read, value sealed anew: triples
-- Returns how many values were replaced (the pack counts as one); 0 for a hash in a Redis format
-- this version does not read ('#f', see metadata.lua), which it never reseals.
-- #include metadata.lua
-- #include pack.lua
-- The pack's placement reads OBJECT ENCODING: replicated as effects, as save.lua is.
redis.replicate_commands()
local key = KEYS[1]
if not readable(redis.call('HGET', key, '#f')) then
  return 0
end
local replaced = 0
for i = 3, #ARGV, 3 do
  if redis.call('HGET', key, ARGV[i]) == ARGV[i + 1] then
    redis.call('HSET', key, ARGV[i], ARGV[i + 2])
    replaced = replaced + 1
  end
end
if ARGV[1] ~= '' then
  local stored = packStored(key)
  local pack = packJoined(stored)
  if pack and ARGV[1] == '=' .. redis.sha1hex(pack) then
    packWrite(key, ARGV[2], stored)
    replaced = replaced + 1
  end
end
return replaced
