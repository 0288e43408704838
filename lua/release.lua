-- Gives one grab back (broker refused the order, or the unpaid order was closed), at most once per order.
-- KEYS[1] = seckill:{vid}:stock   KEYS[2] = seckill:{vid}:buyers   KEYS[3] = seckill:{vid}:released
-- ARGV[1] = user id   ARGV[2] = order id   ARGV[3] = how to announce (SPUBLISH on a cluster, PUBLISH
-- on one node, the default; see seckill.lua)   ARGV[4] = 'sold_out' when Postgres refused the order because
-- its stock was gone: then the buyer is let go but no coupon comes back — Redis learns that Postgres (the
-- truth) has none left, and the next buyer hears "sold out" at once instead of a "yes" that turns into "no";
-- 'forget' when a coupon was refunded after its sale ended: the buyer is let go, the coupon is not sold again.
-- Returns 1 if stock was returned, 0 if this order was already released (or its buyer is not recorded,
-- or Redis has already forgotten the sale: then there is nothing to give back and nothing is written).
-- When the sale is forgotten (absolute, like the stock key's own expiry); -2: already forgotten.
local forget_at = redis.call('PEXPIRETIME', KEYS[1])
if forget_at == -2 then
  return 0
end
if redis.call('SADD', KEYS[3], ARGV[2]) == 0 then
  return 0
end
-- The marker set lives exactly as long as the sale it guards.
if forget_at > 0 and redis.call('SCARD', KEYS[3]) == 1 then
  redis.call('PEXPIREAT', KEYS[3], forget_at)
end
local announce = ARGV[3] == 'SPUBLISH' and 'SPUBLISH' or 'PUBLISH'
if ARGV[4] == 'forget' then
  redis.call('SREM', KEYS[2], ARGV[1])
  return 0
end
if ARGV[4] == 'sold_out' then
  redis.call('SREM', KEYS[2], ARGV[1])
  redis.call('SET', KEYS[1], 0, 'KEEPTTL')
  redis.call(announce, KEYS[1] .. ':live', 0)
  return 0
end
if redis.call('SREM', KEYS[2], ARGV[1]) == 1 then
  -- Announced like a grab, so instances that heard "sold out" open the sale again.
  redis.call(announce, KEYS[1] .. ':live', redis.call('INCR', KEYS[1]))
  return 1
end
return 0
