-- Notes about shops, and who follows whom. Likes live in Redis (a sorted set per note, scored by time) with
-- the count kept in step here; inboxes (feeds) live only in Redis.

CREATE TABLE notes (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id),
    shop_id    BIGINT NOT NULL REFERENCES shops (id),
    title      TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 64),
    body       TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    images     TEXT[] NOT NULL DEFAULT '{}' CHECK (cardinality(images) <= 9),
    liked      INT NOT NULL DEFAULT 0 CHECK (liked >= 0),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    deleted_at TIMESTAMPTZ
);
CREATE INDEX notes_shop_created ON notes (shop_id, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX notes_user_created ON notes (user_id, created_at DESC) WHERE deleted_at IS NULL;

CREATE TABLE follows (
    user_id     BIGINT NOT NULL REFERENCES users (id),
    follows_id  BIGINT NOT NULL REFERENCES users (id),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, follows_id),
    CHECK (user_id <> follows_id)
);
CREATE INDEX follows_followee ON follows (follows_id);
