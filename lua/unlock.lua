-- Releases a lock only if the caller still owns it (compare-and-delete), so a holder whose lock already
-- expired cannot delete a lock that another caller now holds.
-- KEYS[1] = lock key, ARGV[1] = owner token. Returns 1 if released, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
