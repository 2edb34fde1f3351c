-- Loads one session hash in one call, or confirms that the caller's cached copy is current.
-- Also registered as the Redis 7 function 'f' (find-function.lua): FCALL f 1 KEYS[1] ARGV[1] [ARGV[2]].
-- KEYS[1]: the session hash
-- ARGV[1]: the version the caller holds in its near cache, or '' when it holds none
-- ARGV[2]: absent when the caller's copy holds the metadata of that version too (every write of
--          '#a', '#m' or '#p' bumps '#v'); 'm' when it holds only the attributes and creation time
-- Returns nil when the hash is missing or has no version (a partial hash counts as missing);
-- when ARGV[1] is the stored version (the caller's copy is current): the bare integer 1 (4 bytes on
-- the wire), or with ARGV[2] {'#=', '1', '#a', a, '#m', m, '#v', v[, '#p', p]};
-- otherwise every field and value (HGETALL).
local version = redis.call('HGET', KEYS[1], '#v')
if not version then
  return nil
end
if ARGV[1] ~= '' and ARGV[1] == version then
  local meta = redis.call('HMGET', KEYS[1], '#a', '#m', '#p')
  if not meta[1] or not meta[2] then
    return nil
  end
  if not ARGV[2] then
    return 1
  end
  local answer = {'#=', '1', '#a', meta[1], '#m', meta[2], '#v', version}
  if meta[3] then
    answer[9] = '#p'
    answer[10] = meta[3]
  end
  return answer
end
return redis.call('HGETALL', KEYS[1])
