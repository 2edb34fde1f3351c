-- The pack of a session hash (its small attributes compressed as one unit) is stored either whole, in
-- the field '#s', or cut into chunks of at most 63 bytes in fields named by one byte each, 0x80 for
-- the first, 0x81 for the second... (a lone byte of 0x80 or more is never the UTF-8 name of an
-- attribute). Redis keeps a hash whose values are all at most hash-max-listpack-value (64 bytes by
-- default) as one compact listpack instead of a hashtable (a few bytes per field instead of some 50,
-- and no rounding of a long value up to its allocator size class), so a session without attributes of
-- their own is stored that way. Whole when the hash is a hashtable anyway (an attribute of its own, a
-- long principal name, a server configured otherwise), or when the pack needs more than 12 chunks (756
-- bytes) and the listpack would pass 1,024 bytes (at most 15 chunks, 945 bytes): past that, the
-- listpack's own size class costs more than the fields it saves (docs/redis-layout.md).
-- Chunks named '#s0' to '#s11' (written by earlier development builds) are read when the hash holds
-- the pack in no other form, and deleted by the next write of the pack.
-- Included (see RedisScript) by save.lua and reseal.lua, the scripts that write the pack or compare
-- it. The loads (find.lua, delete.lua) answer the fields as stored, and the store's Java side joins
-- them exactly as packJoined does (PackFields): '#s' first, so a whole pack wins over stray chunks,
-- then the chunks in order up to the first one missing.
local PACK_CHUNK_BYTES = 63
local PACK_CHUNK_COUNT = 15
-- Chunks up to this count always (measured); more only when the listpack stays within one size class.
local PACK_CHUNKS_ALWAYS = 12
local PACK_LISTPACK_BYTES = 1024
local PACK_LEGACY_COUNT = 12

-- The names of the chunk fields: one byte each, 0x80 to 0x8E.
local function packChunkFields()
  local fields = {}
  for i = 1, PACK_CHUNK_COUNT do
    fields[i] = string.char(0x7F + i)
  end
  return fields
end

-- The names earlier development builds gave the chunks: '#s0' to '#s11'.
local function packLegacyFields()
  local fields = {}
  for i = 1, PACK_LEGACY_COUNT do
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

-- The chunks present (as HMGET gives them, false when missing), then the whole field; when neither
-- is there, stored.legacy holds the chunks of an earlier development build the same way (that build
-- deleted its chunks whenever it wrote the pack whole, so they are never beside a whole pack).
local function packStored(key)
  local fields = packChunkFields()
  fields[PACK_CHUNK_COUNT + 1] = '#s'
  local stored = redis.call('HMGET', key, unpack(fields))
  if not stored[1] and not stored[PACK_CHUNK_COUNT + 1] then
    stored.legacy = redis.call('HMGET', key, unpack(packLegacyFields()))
  end
  return stored
end

-- Chunks joined in order up to the first missing; nil when the first is.
local function packChunksJoined(chunks, count)
  local parts = {}
  for i = 1, count do
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

-- The pack of what packStored read: the whole field, or the chunks joined up to the first missing.
local function packJoined(stored)
  if stored[PACK_CHUNK_COUNT + 1] then
    return stored[PACK_CHUNK_COUNT + 1]
  end
  if stored[1] then
    return packChunksJoined(stored, PACK_CHUNK_COUNT)
  end
  return stored.legacy and packChunksJoined(stored.legacy, PACK_LEGACY_COUNT)
end

-- The bytes a string entry of this length takes in a listpack (encoding header, the string, the
-- length of the entry written backwards). Redis stores a string that reads as an integer in fewer
-- bytes, so for such values this is an upper bound.
local function packEntryBytes(length)
  local entry = length + (length < 64 and 1 or (length < 4096 and 2 or 5))
  return entry + (entry < 128 and 1 or (entry < 16384 and 2 or 3))
end

-- Whether the hash, with its pack in count chunks instead of the pack fields it has, stays a listpack
-- of at most PACK_LISTPACK_BYTES (its 6-byte header and end byte included; a ziplist, before Redis
-- 7, has 4 bytes more of header). Checked when the pack is written: a later save that adds a field
-- or a principal and leaves the pack may take the listpack past it until the pack is written again.
local function packFits(key, pack, count)
  local last = #pack - (count - 1) * PACK_CHUNK_BYTES
  local bytes = 7 + count * packEntryBytes(1) + (count - 1) * packEntryBytes(PACK_CHUNK_BYTES)
    + packEntryBytes(last)
  local hash = redis.call('HGETALL', key)
  for i = 1, #hash, 2 do
    local name = hash[i]
    local byte = #name == 1 and string.byte(name)
    local chunk = byte and byte >= 0x80 and byte < 0x80 + PACK_CHUNK_COUNT
    if not chunk and name ~= '#s' and not string.match(name, '^#s%d%d?$') then
      bytes = bytes + packEntryBytes(#name) + packEntryBytes(#hash[i + 1])
      if bytes > PACK_LISTPACK_BYTES then
        return false
      end
    end
  end
  return bytes <= PACK_LISTPACK_BYTES
end

-- Replaces the pack ('' deletes it): in chunks while the hash is compact and they are worth it, else
-- whole. Deletes only the names that exist and the new pack does not overwrite. Called after the
-- save's other fields and the metadata are written, so the encoding it checks is the one the hash
-- keeps (checked again after the chunks, which may take it past hash-max-listpack-entries). stored:
-- what packStored read in the same call (no write of the pack since), or nil to read it.
local function packWrite(key, pack, stored)
  stored = stored or packStored(key)
  local names = packChunkFields()
  local count = math.ceil(#pack / PACK_CHUNK_BYTES)
  local chunked = pack ~= '' and count <= PACK_CHUNK_COUNT and packCompact(key)
    and (count <= PACK_CHUNKS_ALWAYS or packFits(key, pack, count))
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
  if stored.legacy then
    local legacy = packLegacyFields()
    for i = 1, PACK_LEGACY_COUNT do
      if stored.legacy[i] then
        stale[#stale + 1] = legacy[i]
      end
    end
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
  if (redis.call('HEXISTS', key, string.char(0x80)) == 1 or redis.call('HEXISTS', key, '#s0') == 1)
      and not packCompact(key) then
    local stored = packStored(key)
    packWrite(key, packJoined(stored), stored)
  end
end
