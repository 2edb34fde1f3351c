-- The metadata field '#' of a session hash: 'creation:lastAccess:maxInactive:version', ASCII decimal
-- numbers. Included (see RedisScript) by every script that reads it, so that they all read it alike,
-- and as strictly as the store's Java side (ScriptReplies) does.
-- metadata(text): the four numbers as strings; nothing when text is missing or not four numbers.
local function metadata(text)
  if not text then
    return nil
  end
  return string.match(text, '^(%-?%d+):(%-?%d+):(%-?%d+):(%-?%d+)$')
end
-- readable(format): whether this version reads a hash whose field '#f' is format (nil: absent). '#f'
-- names the lowest Redis format a reader needs for the hash; absent, the hash is in format 1. This
-- version reads formats 1 and 2 (RedisFormat.READS; docs/redis-layout.md, "Format"). A hash this version cannot read is
-- never written over, moved, resealed nor deleted by it; only the sweep of an expired session, which
-- reads '#' alone (kept in every format), may remove it.
local function readable(format)
  return not format or format == '1' or format == '2'
end
