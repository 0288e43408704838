-- The home page's "Recently viewed": the shops a shopper opened, latest visit per shop. Kept here, not in
-- Redis, because it is something a person did; trimmed to the latest few on every visit.
CREATE TABLE shop_views (
    user_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    shop_id   BIGINT NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
    viewed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, shop_id)
);
CREATE INDEX shop_views_latest ON shop_views (user_id, viewed_at DESC);

-- The home page's "Best rated near you": rated shops found by position (a box around the point first,
-- then the exact distance), ordered by score.
CREATE INDEX shops_rated_position ON shops (latitude, longitude) WHERE review_count > 0;
