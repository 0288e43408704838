-- Sets the stock of a sale that has not started, in the same clock and the same atomic step as a grab, so
-- a merchant's change that arrives late (Postgres checked "more than a second before the start", then the
-- request stalled) can never overwrite grabs already made: once the window opens by Redis' clock, or once
-- anyone holds a grab, the stock is left alone.
-- KEYS[1] = seckill:{vid}:stock   KEYS[2] = seckill:{vid}:window   KEYS[3] = seckill:{vid}:grabs
-- ARGV[1] = the new stock
-- Returns 1 set, 0 refused (started, or grabs exist), -1 Redis does not hold the sale.
local begin = redis.call('HGET', KEYS[2], 'begin')
if (not begin) or (not redis.call('GET', KEYS[1])) then
  return -1
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now >= tonumber(begin) or redis.call('HLEN', KEYS[3]) > 0 then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1
