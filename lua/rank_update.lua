-- Moves one shop on its type's rankings (榜单), if these figures are newer than the last ones applied:
-- writers finish in any order, and a rebuild may run beside them, so an older standing must never win.
-- KEYS[1]: the type's hash of applied figure versions per shop; KEYS[2]: the type's city-wide ranking;
-- KEYS[3] (if the shop has an area): the type's ranking in that area. All three share the `{t<type>}` hash tag.
-- ARGV: shop id, figures version, score, 1 if the shop has enough reviews to rank (else it is taken off).
-- Answers 1 if applied, 0 if Redis already had these figures or newer ones.
local seen = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if tonumber(ARGV[2]) <= seen then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 2, #KEYS do
  if ARGV[4] == '1' then
    redis.call('ZADD', KEYS[i], ARGV[3], ARGV[1])
  else
    redis.call('ZREM', KEYS[i], ARGV[1])
  end
end
return 1
