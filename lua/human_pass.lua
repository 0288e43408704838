-- Records the answer to a slider puzzle: each puzzle is answered once, and a right answer leaves a pass
-- that the sale script takes for one grab. Both keys carry the sale's {vid} hash tag (one slot).
-- KEYS[1] = seckill:{vid}:puzzle:{nonce}   KEYS[2] = seckill:{vid}:pass:{token}
-- ARGV[1] = user id   ARGV[2] = lifetime ms (of the spent-puzzle mark and of the pass)   ARGV[3] = 1 if right
-- Returns 0 if the puzzle was answered before, 1 if passed, 2 if wrong (the puzzle is spent either way).
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then
  return 0
end
if ARGV[3] == '1' then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 2
