-- Writes a cache entry only if no edit has invalidated the id since its loader began (compare-and-set on
-- the id's edit epoch), so a load that read Postgres before an edit cannot put the old row back after the
-- edit's invalidation. The loader reads the epoch before Postgres; `cache_invalidate.lua` moves it on.
-- KEYS[1] = the entry (shop:{id})   KEYS[2] = the id's edit epoch (shop:{id}:epoch), in the same slot
-- ARGV[1] = the epoch the loader read ('0' when there was none)   ARGV[2] = the entry (JSON)
-- ARGV[3] = a real TTL in ms (null markers), or '0' for none (rows expire logically, by their expires_at)
-- Returns 1 if written, 0 if an edit came in between (nothing written).
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then
  return 0
end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1
