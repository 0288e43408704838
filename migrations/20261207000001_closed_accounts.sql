-- Closing an account: its row stays, because orders, notes and reviews point at it (the merchants' books
-- and the shops' scores keep what happened), but nothing personal stays in it — no phone, e-mail,
-- password or picture, a stand-in name — and it is marked closed. A closed account needs no log-in
-- identifier; every other one still does.
ALTER TABLE users ADD COLUMN closed_at TIMESTAMPTZ;
ALTER TABLE users DROP CONSTRAINT users_check;
ALTER TABLE users ADD CONSTRAINT users_identified
    CHECK (closed_at IS NOT NULL OR phone IS NOT NULL OR email IS NOT NULL);
ALTER TABLE users ADD CONSTRAINT users_closed_anonymous
    CHECK (closed_at IS NULL OR (phone IS NULL AND email IS NULL AND avatar_url IS NULL AND password_hash = '!'));
