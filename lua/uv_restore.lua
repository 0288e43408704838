-- Puts a day's visitors back from their Postgres snapshot: the snapshot (Redis' own HyperLogLog encoding)
-- is merged into whatever the key holds, so visits counted since Redis came back are kept, and running it
-- twice changes nothing (a union with a subset).
-- KEYS[1] = uv:<scope>:<day>   KEYS[2] = scratch key in the same slot
-- ARGV[1] = the snapshot's bytes   ARGV[2] = seconds the key is kept
-- Returns the day's count after the merge; an error (and no scratch key left) if the bytes are no HyperLogLog.
redis.call('SET', KEYS[2], ARGV[1])
local merged = redis.pcall('PFMERGE', KEYS[1], KEYS[2])
redis.call('DEL', KEYS[2])
if type(merged) == 'table' and merged.err then
  return merged
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return redis.call('PFCOUNT', KEYS[1])
