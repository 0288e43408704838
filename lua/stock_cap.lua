-- Lowers a sale's Redis stock to what Postgres (the truth) and the orders still in flight leave, never
-- raising it: a Redis that is ahead would answer "yours" for coupons that no longer exist, and the order
-- writer would refuse those orders later. Grabs that ran since the cap was computed only lower the stock
-- further, so the cap can only be too high, never too low.
-- KEYS[1] = seckill:{vid}:stock   ARGV[1] = the cap   ARGV[2] = how to announce (see seckill.lua)
-- Returns how many coupons Redis had too many (0 if none; -1 if Redis does not hold the sale).
local stock = redis.call('GET', KEYS[1])
if not stock then
  return -1
end
local cap = math.max(tonumber(ARGV[1]), 0)
local excess = tonumber(stock) - cap
if excess <= 0 then
  return 0
end
redis.call('SET', KEYS[1], cap, 'KEEPTTL')
redis.call(ARGV[2] == 'SPUBLISH' and 'SPUBLISH' or 'PUBLISH', KEYS[1] .. ':live', cap)
return excess
