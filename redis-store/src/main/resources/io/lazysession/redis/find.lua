-- Loads one session hash in one call.
-- KEYS[1]: the session hash
-- ARGV[1]: the version the caller already holds, or '' when it holds none
-- Returns nil when the hash is missing or has no version (a partial hash counts as missing);
-- {'#=', '1', '#c', c, '#a', a, '#m', m, '#v', v} when ARGV[1] is the stored version (the caller's
-- attribute fields are current); otherwise every field and value (HGETALL).
local version = redis.call('HGET', KEYS[1], '#v')
if not version then
  return nil
end
if ARGV[1] ~= '' and ARGV[1] == version then
  local meta = redis.call('HMGET', KEYS[1], '#c', '#a', '#m')
  return {'#=', '1', '#c', meta[1], '#a', meta[2], '#m', meta[3], '#v', version}
end
return redis.call('HGETALL', KEYS[1])
