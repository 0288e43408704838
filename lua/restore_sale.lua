-- Restores one sale's state from Postgres only if Redis does not have it (first start, or data lost).
-- A sale Redis knows is never overwritten: Redis is ahead of Postgres while orders are still in Kafka.
-- KEYS[1] = seckill:{vid}:stock   KEYS[2] = seckill:{vid}:buyers   KEYS[3] = seckill:{vid}:window
-- KEYS[4] = seckill:{vid}:released
-- ARGV[1] = stock   ARGV[2] = begin ms   ARGV[3] = end ms   ARGV[4] = unix ms when Redis may forget the sale
-- ARGV[5] = 1 if buyers must solve the slider puzzle, else 0   ARGV[6..] = user ids holding a live order
-- Returns 1 if restored, 0 if the sale was already there.
if redis.call('EXISTS', KEYS[1]) == 1 then
  -- Loaded before sales had a lifetime: give it one now, leaving its figures alone.
  if redis.call('PTTL', KEYS[1]) == -1 then
    for i = 1, 4 do
      redis.call('PEXPIREAT', KEYS[i], ARGV[4])
    end
  end
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[4])
redis.call('HSET', KEYS[3], 'begin', ARGV[2], 'end', ARGV[3], 'check', ARGV[5])
redis.call('PEXPIREAT', KEYS[3], ARGV[4])
redis.call('DEL', KEYS[2])
for i = 6, #ARGV do
  redis.call('SADD', KEYS[2], ARGV[i])
end
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
return 1
