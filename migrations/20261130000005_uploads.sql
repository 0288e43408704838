-- Every stored upload, by whom and how big: the per-user quota counts them, and files that no note or
-- shop shows are removed after a grace period.
CREATE TABLE uploads (
    name       TEXT PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    bytes      BIGINT NOT NULL CHECK (bytes > 0),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX uploads_user ON uploads (user_id);
CREATE INDEX uploads_created ON uploads (created_at);
