-- Issues a log-in code for one phone, if the phone may have one now: one per cooldown, so many a day.
-- KEYS[1] = login:{p:phone}:code           hash: code, tries (lives as long as the code is valid)
-- KEYS[2] = login:{p:phone}:code:cooldown  exists while the next send must wait
-- KEYS[3] = login:{p:phone}:code:day       sends today (expires a day after the first)
-- ARGV[1] = the new code   ARGV[2] = code lifetime, ms   ARGV[3] = cooldown, ms   ARGV[4] = sends a day
-- Returns {0, 0} when issued (replacing any earlier code), {1, ms to wait} during the cooldown,
-- {2, ms until the day's count resets} past the daily limit.
local wait = redis.call('PTTL', KEYS[2])
if wait > 0 then
  return {1, wait}
end
local today = tonumber(redis.call('GET', KEYS[3]) or '0')
if today >= tonumber(ARGV[4]) then
  local reset = redis.call('PTTL', KEYS[3])
  if reset < 1 then reset = 86400000 end
  return {2, reset}
end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
end
if redis.call('INCR', KEYS[3]) == 1 then
  redis.call('PEXPIRE', KEYS[3], 86400000)
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'code', ARGV[1], 'tries', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {0, 0}
