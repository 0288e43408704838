-- One flash-sale grab, atomically, in one round trip: the buyer's attempt limit (a sliding window), the sale
-- window, one per user, stock, then deduct and record the buyer.
-- Nil-safe: a sale whose keys are missing answers 1 instead of erroring on tonumber(nil).
-- Uses Redis' own clock so every app instance agrees on when a sale starts and ends.
-- KEYS[1] = seckill:{vid}:stock   KEYS[2] = seckill:{vid}:buyers   KEYS[3] = seckill:{vid}:window
-- KEYS[4] = seckill:{vid}:grabs (user id -> "<order id>:<ms>": the grab that recorded them, and when, by
-- Redis' clock: the order id's own time is when it was minted, before a call that may wait out a failover)
-- KEYS[5] = seckill:{vid}:tries:{user} (this buyer's recent attempts on this sale: a sorted set of times)
-- KEYS[6] = seckill:{vid}:pass:{token} (the buyer's solved slider puzzle; asked for only when the window
-- hash says check = 1, and taken by the grab whatever comes of it)
-- KEYS[7] = seckill:{vid}:announced (present for ARGV[7] ms after the stock was last announced)
-- Every key carries the sale's {vid} hash tag, so the script stays valid on Redis Cluster. A grab announces
-- the stock left on the channel KEYS[1]:live (ARGV[6] says how) — at most once per ARGV[7] ms, and always
-- when it takes the last coupon: during a burst every grab's message would reach every instance, which
-- cost each of them more than the grabs they served. A grab that did not announce says so, and its
-- instance announces the figure the burst left a moment later (announce.lua).
-- ARGV[1] = user id   ARGV[2] = the order id this grab will produce (lets a caller whose call timed out
-- check whether the grab happened instead of guessing, and a re-sent call answer as the first one did)
-- ARGV[3] = attempt window ms   ARGV[4] = attempts allowed per window (0: no limit)   ARGV[5] = attempt id
-- ARGV[6] = how to announce: SPUBLISH on a cluster (a shard channel: only the sale's shard carries it),
-- PUBLISH on one node (the default)   ARGV[7] = the least ms between two announcements (0: every grab)
-- Returns {code, wait ms[, announced]}: code 0 ok, 1 no such sale, 2 not started, 3 ended, 4 sold out,
-- 5 already bought, 6 too many attempts (wait ms until the oldest one leaves the window; 0 for every other
-- code), 7 no valid puzzle pass (missing, used, expired or another user's); a grab that deducted adds 1 if
-- it announced the stock left, 0 if its announcement is owed.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[4]) or 0
if limit > 0 then
  local span = tonumber(ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - span)
  if redis.call('ZCARD', KEYS[5]) >= limit then
    local oldest = redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')
    local wait = tonumber(oldest[2]) + span - now
    if wait < 1 then wait = 1 end
    return {6, wait}
  end
  redis.call('ZADD', KEYS[5], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[5], span)
end
local window = redis.call('HMGET', KEYS[3], 'begin', 'end', 'check')
local stock = redis.call('GET', KEYS[1])
if (not window[1]) or (not window[2]) or (not stock) then
  return {1, 0}
end
if now < tonumber(window[1]) then
  return {2, 0}
end
if now >= tonumber(window[2]) then
  return {3, 0}
end
-- The same grab sent again (a client that lost the answer mid-failover re-sends its pipeline to the new
-- primary): recorded under this very order id, so it answers as it did the first time.
local mine = redis.call('HGET', KEYS[4], ARGV[1])
if mine and string.sub(mine, 1, #ARGV[2] + 1) == ARGV[2] .. ':' and redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then
  return {0, 0}
end
if window[3] == '1' then
  if redis.call('GET', KEYS[6]) ~= ARGV[1] then
    return {7, 0}
  end
  redis.call('DEL', KEYS[6])
end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then
  return {5, 0}
end
if tonumber(stock) <= 0 then
  return {4, 0}
end
local left = redis.call('DECR', KEYS[1])
-- Every instance hears the new figure on the sale's channel: open shop pages show it, and an instance
-- that heard 0 answers "sold out" without coming here.
-- (PTTL and PSETEX rather than SET NX: no client sends them during a sale, so a benchmark can tell the
-- script's commands from the clients' by name.)
local quiet = tonumber(ARGV[7]) or 0
local announced = 1
if left > 0 and quiet > 0 then
  if redis.call('PTTL', KEYS[7]) < 0 then
    redis.call('PSETEX', KEYS[7], quiet, '1')
  else
    announced = 0
  end
end
if announced == 1 then
  redis.call(ARGV[6] == 'SPUBLISH' and 'SPUBLISH' or 'PUBLISH', KEYS[1] .. ':live', left)
end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2] .. ':' .. now)
-- The buyer set and the grab record are born here: give them the sale's lifetime so Redis forgets the
-- sale as a whole — the stock key's own instant (PEXPIRETIME, Redis 7), as a relative PTTL can land a
-- millisecond off.
local forget_at = redis.call('PEXPIRETIME', KEYS[1])
if forget_at > 0 then
  if redis.call('SCARD', KEYS[2]) == 1 then
    redis.call('PEXPIREAT', KEYS[2], forget_at)
  end
  if redis.call('HLEN', KEYS[4]) == 1 then
    redis.call('PEXPIREAT', KEYS[4], forget_at)
  end
end
return {0, 0, announced}
