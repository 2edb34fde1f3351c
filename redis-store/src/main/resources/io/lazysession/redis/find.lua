-- Loads one session hash in one call, or confirms that the caller's cached copy is current.
-- KEYS[1]: the session hash
-- ARGV[1]: the version the caller holds in its near cache, or '' when it holds none
-- Returns nil when the hash is missing or has no version (a partial hash counts as missing);
-- {'#=', '1', '#a', a, '#m', m, '#v', v[, '#p', p]} when ARGV[1] is the stored version (the caller's
-- attribute fields and creation time are current: a few dozen bytes instead of the whole hash);
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
  local answer = {'#=', '1', '#a', meta[1], '#m', meta[2], '#v', version}
  if meta[3] then
    answer[9] = '#p'
    answer[10] = meta[3]
  end
  return answer
end
return redis.call('HGETALL', KEYS[1])
