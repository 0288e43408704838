-- One log-in attempt asks to be let through, atomically: checked and counted in one step, so N guesses
-- sent at once cannot slip past the limit together. Both keys carry the account's hash tag.
-- KEYS[1] = login:{a:account}:from:{address}  attempts on this account from this address
-- KEYS[2] = login:{a:account}:all             attempts on this account from anywhere (n, last)
-- ARGV[1] = attempts allowed per account and address in the window
-- ARGV[2] = window, ms
-- ARGV[3] = attempts on the account before each further one must wait
-- ARGV[4] = first wait, ms (doubling per attempt)   ARGV[5] = longest wait, ms
-- Returns {0, attempts from this address so far} when let through (and counted),
--         {1, ms until this address may try this account again} when locked out,
--         {2, ms to wait} when the account is being slowed down.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
local pair = tonumber(redis.call('GET', KEYS[1]) or '0')
if pair >= tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 1 then ttl = window end
  return {1, ttl}
end
local n = tonumber(redis.call('HGET', KEYS[2], 'n') or '0')
local free = tonumber(ARGV[3])
if n >= free then
  local last = tonumber(redis.call('HGET', KEYS[2], 'last') or '0')
  local wait = math.min(tonumber(ARGV[4]) * 2 ^ (n - free), tonumber(ARGV[5]))
  if now - last < wait then
    return {2, math.floor(wait - (now - last))}
  end
end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], window)
redis.call('HINCRBY', KEYS[2], 'n', 1)
redis.call('HSET', KEYS[2], 'last', now)
redis.call('PEXPIRE', KEYS[2], window)
return {0, pair + 1}
