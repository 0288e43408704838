-- Nearby search narrowed by price, score or open now is answered by Postgres (Redis' GEO sets know where a
-- shop is, not what it costs or when it opens): the shops of one type in a box around the point, which this
-- index narrows to before the exact distance is measured. The rated shops' position index cannot serve:
-- a price band or open now lists unrated shops too.
CREATE INDEX shops_type_position ON shops (type_id, latitude, longitude);
