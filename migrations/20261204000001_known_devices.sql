-- Browsers that have logged in to an account. A log-in code asked for from one of them has a daily
-- allowance of its own, so a stranger who spends a phone's ten codes a day cannot lock its owner out
-- (issue 32). Only a hash of the cookie's token is kept; a user keeps their newest ten devices.
CREATE TABLE known_devices (
    token_hash   BYTEA PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX known_devices_user ON known_devices (user_id, created_at DESC);
