-- The inbox: what happened to a person's orders, reviews and followers, kept in Postgres (Redis only
-- carries the live unread count to open pages). One notice per (person, kind, subject): a redelivered
-- check or a retried step notifies once.
CREATE TABLE notices (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('order_paid', 'order_closing', 'order_closed', 'order_cancelled',
                                             'order_refunded', 'order_redeemed', 'review_reply', 'new_follower')),
    -- The order, the review or the follower it is about.
    subject_id BIGINT NOT NULL,
    -- What the sentence names (a coupon's title, a shop's name, a nickname), as it was then.
    detail     TEXT NOT NULL DEFAULT '' CHECK (length(detail) <= 200),
    -- Where the notice leads (a path on this site).
    link       TEXT NOT NULL CHECK (link LIKE '/%'),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    read_at    TIMESTAMPTZ,
    UNIQUE (user_id, kind, subject_id)
);
CREATE INDEX notices_newest ON notices (user_id, id DESC);
CREATE INDEX notices_unread ON notices (user_id) WHERE read_at IS NULL;

-- Kinds a person switched off (none by default): nothing of that kind is written for them.
CREATE TABLE notice_switches_off (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind    TEXT NOT NULL,
    PRIMARY KEY (user_id, kind)
);
