-- Announces one node of a namespace and reads what the others announced, in one atomic call
-- (RedisFormat; docs/redis-layout.md, "Format").
-- KEYS[1]: the namespace's format hash ('<ns>:format')
-- ARGV[1]: this node's field ('node:<id>')
-- ARGV[2]: its announcement without the time ('reads=1 writes=1 version=... host=...'); '' to
--          announce nothing (a read)
-- ARGV[3]: milliseconds after which a node that has not announced itself again is forgotten
-- ARGV[4] (optional): a format to finalize the namespace at: raises field 'finalized' to it, never
--          lowers it, unless a live node (one seen less than ARGV[5] ms ago) reads an older format
-- ARGV[5] (with ARGV[4]): how long a node counts as live after it announced itself, milliseconds
-- ARGV[6] (optional, with ARGV[4]): 'absent' to raise 'finalized' only while the field is absent
--          (a node putting back what Redis lost, never over a value an operator set meanwhile)
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
local forget = tonumber(ARGV[3])
local all = redis.call('HGETALL', key)
if ARGV[4] then
  local target = tonumber(ARGV[4])
  local blocked = false
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 5) == 'node:' then
      local seen = tonumber(string.match(all[i + 1], 'seen=(%d+)') or '')
      local reads = tonumber(string.match(all[i + 1], 'reads=(%d+)') or '') or 1
      if seen and math.abs(now - seen) <= tonumber(ARGV[5]) and reads < target then
        blocked = true
      end
    end
  end
  local stored = redis.call('HGET', key, 'finalized')
  local current = tonumber(stored or '1') or 1
  if not blocked and target > current and not (ARGV[6] == 'absent' and stored) then
    redis.call('HSET', key, 'finalized', ARGV[4])
    all = redis.call('HGETALL', key)
  end
end
local answer = {nowText}
for i = 1, #all, 2 do
  local node = string.sub(all[i], 1, 5) == 'node:'
  local seen = node and tonumber(string.match(all[i + 1], 'seen=(%d+)') or '')
  -- A node silent for ARGV[3] ms is forgotten; so is one without a time, or with one far ahead.
  if node and (not seen or math.abs(now - seen) > forget) then
    redis.call('HDEL', key, all[i])
  else
    answer[#answer + 1] = all[i]
    answer[#answer + 1] = all[i + 1]
  end
end
return answer
