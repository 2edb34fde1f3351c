-- The pack of a session hash (its small attributes compressed as one unit) is stored either whole, in
-- the field '#s', or cut into chunks of at most 63 bytes in the fields '#s0', '#s1', ... Redis keeps a
-- hash whose values are all at most hash-max-listpack-value (64 bytes by default) as one compact
-- listpack instead of a hashtable (a few bytes per field instead of some 50, and no rounding of a long
-- value up to its allocator size class), so a session without attributes of their own is stored that
-- way. Whole when the hash is a hashtable anyway (an attribute of its own, a long principal name, a
-- server configured otherwise), or when the pack is over 12 chunks (756 bytes): past that, the
-- listpack's own size class costs more than the fields it saves (docs/redis-layout.md).
-- Included (see RedisScript) by every script that reads or writes the pack; they all read '#s' first,
-- so a whole pack wins over stray chunks, and chunks are read up to the first one missing.
local PACK_CHUNK_BYTES = 63
local PACK_CHUNK_COUNT = 12

-- The names of the chunk fields, '#s0' to '#s11' (made only by the calls that need them: every find
-- includes this file, and a near-cache hit reads no pack).
local function packChunkFields()
  local fields = {}
  for i = 1, PACK_CHUNK_COUNT do
    fields[i] = '#s' .. (i - 1)
  end
  return fields
end

-- Whether Redis keeps the hash in its compact encoding (true for a missing key).
local function packCompact(key)
  local encoding = redis.call('OBJECT', 'ENCODING', key)
  return not encoding or encoding == 'listpack' or encoding == 'ziplist'
end

-- The pack as the scripts return it: the whole field, or the chunks joined; nil when there is none.
local function packRead(key)
  local whole = redis.call('HGET', key, '#s')
  if whole then
    return whole
  end
  local chunks = redis.call('HMGET', key, unpack(packChunkFields()))
  local parts = {}
  for i = 1, PACK_CHUNK_COUNT do
    if not chunks[i] then
      break
    end
    parts[i] = chunks[i]
  end
  if #parts == 0 then
    return nil
  end
  return table.concat(parts)
end

-- HGETALL, with the pack's chunks (if any) given back as one field '#s'.
local function packFields(key)
  local fields = redis.call('HGETALL', key)
  if redis.call('HEXISTS', key, '#s0') == 0 then
    return fields
  end
  local pack = packRead(key)
  local answer = {}
  for i = 1, #fields, 2 do
    local name = fields[i]
    if name ~= '#s' and not string.match(name, '^#s%d+$') then
      answer[#answer + 1] = name
      answer[#answer + 1] = fields[i + 1]
    end
  end
  answer[#answer + 1] = '#s'
  answer[#answer + 1] = pack
  return answer
end

-- Replaces the pack ('' deletes it), in chunks while the hash is compact.
local function packWrite(key, pack)
  local fields = packChunkFields()
  redis.call('HDEL', key, '#s', unpack(fields))
  if pack == '' then
    return
  end
  local count = math.ceil(#pack / PACK_CHUNK_BYTES)
  if count > PACK_CHUNK_COUNT or not packCompact(key) then
    redis.call('HSET', key, '#s', pack)
    return
  end
  local args = {}
  for i = 1, count do
    args[2 * i - 1] = fields[i]
    args[2 * i] = string.sub(pack, (i - 1) * PACK_CHUNK_BYTES + 1, i * PACK_CHUNK_BYTES)
  end
  redis.call('HSET', key, unpack(args))
end

-- After a write that may have turned the hash into a hashtable (a long value): a chunked pack is
-- joined into one field again, where chunks would only cost a field each.
local function packSettle(key)
  if redis.call('HEXISTS', key, '#s0') == 1 and not packCompact(key) then
    local pack = packRead(key)
    redis.call('HDEL', key, unpack(packChunkFields()))
    redis.call('HSET', key, '#s', pack)
  end
end
