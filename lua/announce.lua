-- Announces a sale's stock as it is now: the figure a burst of grabs left, which their own announcements
-- skipped (seckill.lua announces at most once per quiet spell), sent a spell later by an instance whose grab
-- did not announce. It counts as an announcement, so the next grab's waits a spell too.
-- KEYS[1] = seckill:{vid}:stock   KEYS[2] = seckill:{vid}:announced
-- ARGV[1] = how to announce (SPUBLISH on a cluster, PUBLISH on one node; see seckill.lua)
-- ARGV[2] = the least ms between two announcements
-- Returns 1 if announced, 0 if Redis no longer holds the sale.
local left = redis.call('GET', KEYS[1])
if not left then
  return 0
end
redis.call(ARGV[1] == 'SPUBLISH' and 'SPUBLISH' or 'PUBLISH', KEYS[1] .. ':live', left)
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1
