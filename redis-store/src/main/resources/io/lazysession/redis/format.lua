-- Announces one node of a namespace and reads what the others announced, in one atomic call
-- (RedisFormat; docs/redis-layout.md, "Format").
-- KEYS[1]: the namespace's format hash ('<ns>:format')
-- ARGV[1]: this node's field ('node:<id>')
-- ARGV[2]: its announcement without the time ('reads=1 writes=1 version=... host=...'); '' to
--          announce nothing (a read)
-- ARGV[3]: milliseconds after which a node that has not announced itself again is forgotten
-- ARGV[4] (optional): a format to finalize the namespace at: raises field 'finalized' to it, never
--          lowers it
-- Returns {now, field, value, field, value, ...}: the time of the Redis server (epoch milliseconds,
-- written into each announcement as 'seen=') and the hash as it stands after the call.
-- TIME before writes: replicated as effects (the default since Redis 5, the only way since 7).
redis.replicate_commands()
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local nowText = string.format('%d', now)
if ARGV[2] ~= '' then
  redis.call('HSET', key, ARGV[1], ARGV[2] .. ' seen=' .. nowText)
end
if ARGV[4] then
  local current = tonumber(redis.call('HGET', key, 'finalized') or '1') or 1
  if tonumber(ARGV[4]) > current then
    redis.call('HSET', key, 'finalized', ARGV[4])
  end
end
local all = redis.call('HGETALL', key)
local answer = {nowText}
local forget = tonumber(ARGV[3])
for i = 1, #all, 2 do
  local seen = string.sub(all[i], 1, 5) == 'node:' and tonumber(string.match(all[i + 1], 'seen=(%d+)'))
  if seen and now - seen > forget then
    redis.call('HDEL', key, all[i])
  else
    answer[#answer + 1] = all[i]
    answer[#answer + 1] = all[i + 1]
  end
end
return answer
