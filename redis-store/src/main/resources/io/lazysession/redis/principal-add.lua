-- Adds a session id to a principal's set and keeps the set alive at least as long as that session:
-- what a repository without expiry events does instead of a plain SADD, since no sweep takes the
-- ids of expired sessions out of the set. One key (the set), so it runs on any Cluster node.
-- KEYS[1]: the principal set
-- ARGV[1]: the session id
-- ARGV[2]: how long the set must live from now, milliseconds; negative: the session never expires
-- A TTL only grows (a session with a shorter timeout never cuts the set short for a longer one), and
-- a set without one (a session that never expires, or a set written by a node with expiry events)
-- keeps none. Returns 1 when the id was not in the set yet, else 0.
-- #include keep-alive.lua
local key = KEYS[1]
local fresh = redis.call('EXISTS', key) == 0
local added = redis.call('SADD', key, ARGV[1])
keepAlive(key, tonumber(ARGV[2]), fresh)
return added
