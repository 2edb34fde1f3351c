-- Deletes a session of Spring Session Data Redis not yet taken over (a sign-out), and marks its claim
-- key so that a take-over in flight does not bring it back (it checks the mark when it is done).
-- See SpringSessionDataRedisMigration#delete.
-- KEYS[1]: SSDR's session hash
-- KEYS[2]: the claim key, in the same slot
-- ARGV[1]: how long the mark is kept, milliseconds (longer than any take-over takes)
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[2], '#deleted', '1')
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
