-- Likes or un-likes a note for one user, atomically: a like is a member of the note's sorted set scored by
-- the time it was given (so the first likers come first), an un-like removes it.
-- KEYS[1] = likes:{note}   ARGV[1] = user id   ARGV[2] = now (ms)
-- Returns 1 if now liked, -1 if now not liked: the change to apply to the note's count in Postgres.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return -1
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
