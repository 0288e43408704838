-- Log-in attempts from one address (whatever accounts it tries), checked and counted in one step.
-- KEYS[1] = login:addr:{address}   ARGV[1] = attempts allowed in the window   ARGV[2] = window, ms
-- ARGV[3] = 'take' (an attempt asks to go through) or 'give' (it succeeded: it does not count)
-- Returns for 'take' {0, attempts so far} when let through (and counted), else {1, ms until the address
-- may try again}; for 'give' {0, 0}.
if ARGV[3] == 'give' then
  if redis.call('GET', KEYS[1]) and tonumber(redis.call('GET', KEYS[1])) > 0 then
    redis.call('DECR', KEYS[1])
  end
  return {0, 0}
end
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 1 then ttl = tonumber(ARGV[2]) end
  return {1, ttl}
end
redis.call('INCR', KEYS[1])
if n == 0 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
end
return {0, n + 1}
