-- Sliding-window limiter over a sorted set of request times (Redis clock, milliseconds).
-- KEYS[1] = rl:{scope}:{who}   ARGV[1] = window ms   ARGV[2] = limit   ARGV[3] = unique request id
-- Returns 0 when allowed (and records the request), else the milliseconds until a slot frees up.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = tonumber(oldest[2]) + window - now
  if wait < 1 then wait = 1 end
  return wait
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0
