-- The home page in a city of a million shops (docs/benchmarks.md, "A big city").
--
-- "Best rated near you": the city's centre is dense — a quarter of a million shops lie within its 3 km — so
-- finding them by position and sorting them by score read a quarter of the table (0.4 s). Walking the rated
-- shops from the best down finds the first few inside the circle at once there; where few shops are near,
-- the planner still takes the position index.
CREATE INDEX shops_rated_score ON shops (score DESC, review_count DESC, id) WHERE review_count > 0;

-- "Flash sales": the few sales on now or to come were picked out of every coupon (200,000 there: 30 ms).
CREATE INDEX vouchers_flash_on ON vouchers (begin_at, id) WHERE kind = 'flash' AND status = 'on';
