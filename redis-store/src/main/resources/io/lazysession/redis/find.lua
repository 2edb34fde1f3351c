-- Loads one session hash in one call, or confirms that the caller's cached copy is current.
-- Also registered as the Redis 7 function 'f' (find-function.lua): FCALL f 1 KEYS[1] ARGV[1] [ARGV[2]].
-- KEYS[1]: the session hash
-- ARGV[1]: the version the caller holds in its near cache, or '' when it holds none
-- ARGV[2]: absent when the caller's copy holds the metadata of that version too (every write of
--          the last access, the timeout or '#p' bumps the version); 'm' when it holds only the
--          attributes and creation time
-- The metadata field '#' holds 'creation:lastAccess:maxInactive:version' (ASCII decimal numbers).
-- Returns nil when the hash is missing or has no readable metadata (a partial hash counts as missing);
-- when ARGV[1] is the stored version (the caller's copy is current): the bare integer 1 (4 bytes on
-- the wire), or with ARGV[2] {'#=', '1', '#a', a, '#m', m, '#v', v[, '#p', p]};
-- otherwise every field and value (HGETALL; a pack in chunks is joined by the caller, see pack.lua).
-- #include metadata.lua
local _, lastAccess, maxInactive, version = metadata(redis.call('HGET', KEYS[1], '#'))
if not version then
  return nil
end
if ARGV[1] ~= '' and ARGV[1] == version then
  if not ARGV[2] then
    return 1
  end
  local answer = {'#=', '1', '#a', lastAccess, '#m', maxInactive, '#v', version}
  local principal = redis.call('HGET', KEYS[1], '#p')
  if principal then
    answer[9] = '#p'
    answer[10] = principal
  end
  return answer
end
return redis.call('HGETALL', KEYS[1])
