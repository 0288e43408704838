-- An edit's invalidation of a cache entry, after the edit's commit: moves the id's edit epoch on (so a
-- load that began before it cannot write, see `cache_fill.lua`) and deletes the entry, in one step.
-- KEYS[1] = the entry (shop:{id})   KEYS[2] = the id's edit epoch (shop:{id}:epoch), in the same slot
-- ARGV[1] = how long the epoch outlives this edit, ms (it only has to outlast a load in flight)
-- Returns the new epoch.
local epoch = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return epoch
