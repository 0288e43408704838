-- Favourites (收藏): shops a shopper saved, newest first on /me/favourites. Postgres is the record (Redis
-- holds nothing of it); a shop's count is counted from here, over the shop index below.
CREATE TABLE favourites (
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    shop_id    BIGINT NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, shop_id)
);
CREATE INDEX favourites_by_shop ON favourites (shop_id);
CREATE INDEX favourites_by_user_newest ON favourites (user_id, created_at DESC, shop_id DESC);
