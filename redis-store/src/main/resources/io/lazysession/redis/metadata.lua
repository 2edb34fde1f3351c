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
