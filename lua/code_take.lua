-- One attempt at a phone's log-in code: counted before the caller compares (so parallel guesses cannot
-- exceed the limit); the code is burned at the last allowed attempt's failure by the caller, or here once
-- the tries are used up.
-- KEYS[1] = login:{p:phone}:code   ARGV[1] = attempts allowed
-- Returns {code, attempts used so far including this one}, or {false, 0} when there is no live code.
local code = redis.call('HGET', KEYS[1], 'code')
if not code then
  return {false, 0}
end
local tries = redis.call('HINCRBY', KEYS[1], 'tries', 1)
if tries > tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return {false, 0}
end
return {code, tries}
