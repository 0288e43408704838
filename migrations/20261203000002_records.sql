-- The record of every fact a person creates. Redis keeps fast copies (likes' sorted sets, check-in bitmaps,
-- visitor HyperLogLogs, sessions) and keeps nothing on disk: these tables are what a rebuild reads when
-- Redis comes back empty (docs/reliability.md, "What each structure's record is").

-- One row per like; notes.liked is kept in step by the trigger below, so a count is never recomputed by
-- scanning and never drifts from the rows.
CREATE TABLE note_likes (
    note_id  BIGINT NOT NULL REFERENCES notes (id),
    user_id  BIGINT NOT NULL REFERENCES users (id),
    liked_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (note_id, user_id)
);
CREATE INDEX note_likes_user ON note_likes (user_id);

CREATE FUNCTION note_likes_keep_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE notes SET liked = liked + 1 WHERE id = NEW.note_id;
    ELSE
        UPDATE notes SET liked = liked - 1 WHERE id = OLD.note_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER note_likes_keep_count AFTER INSERT OR DELETE ON note_likes
    FOR EACH ROW EXECUTE FUNCTION note_likes_keep_count();

-- Counts written before likes had rows cannot be backed by any; they start again from the rows.
UPDATE notes SET liked = 0;

-- One row per day a person checked in (the day in China Standard Time, as the calendar shows it).
CREATE TABLE checkins (
    user_id BIGINT NOT NULL REFERENCES users (id),
    day     DATE NOT NULL,
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, day)
);

-- Snapshots of the daily visitor HyperLogLogs (Redis' own encoding, restored with PFMERGE), taken every few
-- minutes and just after midnight: a total Redis loss costs at most the visits of the last interval.
-- scope: 'site' or 'shop:<id>', the middle of the Redis key uv:<scope>:<yyyymmdd>.
CREATE TABLE visitor_days (
    scope    TEXT NOT NULL CHECK (scope = 'site' OR scope ~ '^shop:[0-9]+$'),
    day      DATE NOT NULL,
    hll      BYTEA NOT NULL,
    saved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, day)
);
CREATE INDEX visitor_days_day ON visitor_days (day);

-- Sessions: Redis answers (and each instance's memory before it); this is the record under it, so a Redis
-- restart logs nobody out. data is the record's key-value map as JSON; user_id is read from it so one
-- person's sessions can be found (and ended) together.
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    data       JSONB NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    user_id    BIGINT GENERATED ALWAYS AS ((data ->> 'uid')::BIGINT) STORED
);
CREATE INDEX sessions_expires ON sessions (expires_at);
CREATE INDEX sessions_user ON sessions (user_id) WHERE user_id IS NOT NULL;
