-- The pack of a session hash (its small attributes compressed as one unit) is stored either whole, in
-- the field '#s', or cut into chunks of at most 63 bytes in the fields '#s0', '#s1', ... Redis keeps a
-- hash whose values are all at most hash-max-listpack-value (64 bytes by default) as one compact
-- listpack instead of a hashtable (a few bytes per field instead of some 50, and no rounding of a long
-- value up to its allocator size class), so a session without attributes of their own is stored that
-- way. Whole when the hash is a hashtable anyway (an attribute of its own, a long principal name, a
-- server configured otherwise), or when the pack is over 12 chunks (756 bytes): past that, the
-- listpack's own size class costs more than the fields it saves (docs/redis-layout.md).
-- Included (see RedisScript) by save.lua, the one script that writes the pack or compares it. The
-- loads (find.lua, delete.lua) answer the fields as stored, and the store's Java side joins them
-- exactly as packJoined does (ScriptReplies.PackFields): '#s' first, so a whole pack wins over stray
-- chunks, and chunks in order up to the first one missing.
local PACK_CHUNK_BYTES = 63
local PACK_CHUNK_COUNT = 12

-- The names of the chunk fields, '#s0' to '#s11'.
local function packChunkFields()
  local fields = {}
  for i = 1, PACK_CHUNK_COUNT do
    fields[i] = '#s' .. (i - 1)
  end
  return fields
end

-- Whether Redis keeps the hash in its compact encoding (true for a missing key). False when the
-- server refuses OBJECT (an ACL that does not grant it): the pack is then simply stored whole.
local function packCompact(key)
  local encoding = redis.pcall('OBJECT', 'ENCODING', key)
  if type(encoding) == 'table' then
    return false
  end
  return not encoding or encoding == 'listpack' or encoding == 'ziplist'
end

-- The chunks present ('#s0'... as HMGET gives them, false when missing) and the whole field.
local function packStored(key)
  local fields = packChunkFields()
  fields[PACK_CHUNK_COUNT + 1] = '#s'
  return redis.call('HMGET', key, unpack(fields))
end

-- The pack of what packStored read: the whole field, or the chunks joined up to the first missing.
local function packJoined(stored)
  if stored[PACK_CHUNK_COUNT + 1] then
    return stored[PACK_CHUNK_COUNT + 1]
  end
  local parts = {}
  for i = 1, PACK_CHUNK_COUNT do
    if not stored[i] then
      break
    end
    parts[i] = stored[i]
  end
  if #parts == 0 then
    return nil
  end
  return table.concat(parts)
end

-- Replaces the pack ('' deletes it): in chunks while the hash is compact, else whole. Deletes only
-- the names that exist and the new pack does not overwrite. Called after the save's other fields and
-- the metadata are written, so the encoding it checks is the one the hash keeps (checked again after
-- the chunks, which may take it past hash-max-listpack-entries). stored: what packStored read in the
-- same call (no write of the pack since), or nil to read it.
local function packWrite(key, pack, stored)
  stored = stored or packStored(key)
  local names = packChunkFields()
  local count = math.ceil(#pack / PACK_CHUNK_BYTES)
  local chunked = pack ~= '' and count <= PACK_CHUNK_COUNT and packCompact(key)
  if not chunked then
    count = 0
  end
  local stale = {}
  for i = count + 1, PACK_CHUNK_COUNT do
    if stored[i] then
      stale[#stale + 1] = names[i]
    end
  end
  if stored[PACK_CHUNK_COUNT + 1] and (chunked or pack == '') then
    stale[#stale + 1] = '#s'
  end
  if #stale > 0 then
    redis.call('HDEL', key, unpack(stale))
  end
  if chunked then
    local args = {}
    for i = 1, count do
      args[2 * i - 1] = names[i]
      args[2 * i] = string.sub(pack, (i - 1) * PACK_CHUNK_BYTES + 1, i * PACK_CHUNK_BYTES)
    end
    redis.call('HSET', key, unpack(args))
    if not packCompact(key) then
      -- The chunks themselves took the hash past a limit (hash-max-listpack-entries set low): whole.
      redis.call('HDEL', key, unpack(names, 1, count))
      redis.call('HSET', key, '#s', pack)
    end
  elseif pack ~= '' then
    redis.call('HSET', key, '#s', pack)
  end
end

-- After a save that left the pack as it was but may have turned the hash into a hashtable (an
-- attribute of its own): chunks are joined into one field again, where they would only cost a field
-- each.
local function packSettle(key)
  if redis.call('HEXISTS', key, '#s0') == 1 and not packCompact(key) then
    local stored = packStored(key)
    packWrite(key, packJoined(stored), stored)
  end
end
