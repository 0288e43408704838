-- Moderation of notes beside reviews: notes can be reported and hidden with a reason their author reads;
-- a hidden review or note can be restored (the reason goes to the audit log). `hidden_at` dates each
-- hiding, for the operators' list of what was hidden lately and for counting repeat offenders.

ALTER TABLE reviews ADD COLUMN hidden_at TIMESTAMPTZ;
UPDATE reviews SET hidden_at = updated_at WHERE status = 'hidden';
ALTER TABLE reviews ADD CONSTRAINT reviews_hidden_dated CHECK (status <> 'hidden' OR hidden_at IS NOT NULL);
CREATE INDEX reviews_hidden ON reviews (hidden_at DESC) WHERE status = 'hidden';

-- A hidden note leaves every list and feed; its author still opens it and reads why.
ALTER TABLE notes
    ADD COLUMN hidden_at TIMESTAMPTZ,
    ADD COLUMN hidden_reason TEXT CHECK (char_length(hidden_reason) BETWEEN 5 AND 200),
    ADD CONSTRAINT notes_hidden_with_reason CHECK ((hidden_at IS NULL) = (hidden_reason IS NULL));
DROP INDEX notes_shop_created;
DROP INDEX notes_user_created;
CREATE INDEX notes_shop_created ON notes (shop_id, created_at DESC) WHERE deleted_at IS NULL AND hidden_at IS NULL;
CREATE INDEX notes_user_created ON notes (user_id, created_at DESC) WHERE deleted_at IS NULL AND hidden_at IS NULL;
CREATE INDEX notes_hidden ON notes (hidden_at DESC) WHERE hidden_at IS NOT NULL AND deleted_at IS NULL;

-- Reports of notes, one per reporter and note (reporting again while open replaces the reason).
CREATE TABLE note_reports (
    id          BIGSERIAL PRIMARY KEY,
    note_id     BIGINT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    reporter_id BIGINT NOT NULL REFERENCES users (id),
    reason      TEXT NOT NULL CHECK (char_length(reason) BETWEEN 5 AND 500),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    resolved_at TIMESTAMPTZ,
    resolved_by BIGINT REFERENCES users (id),
    resolution  TEXT CHECK (resolution IN ('hidden', 'kept')),
    UNIQUE (note_id, reporter_id)
);
CREATE INDEX note_reports_open ON note_reports (created_at) WHERE resolved_at IS NULL;

-- The author hears of a hiding or a restoring in their inbox.
ALTER TABLE notices DROP CONSTRAINT notices_kind_check;
ALTER TABLE notices ADD CONSTRAINT notices_kind_check
    CHECK (kind IN ('order_paid', 'order_closing', 'order_closed', 'order_cancelled', 'order_refunded',
                    'order_redeemed', 'review_reply', 'new_follower', 'merchant_application', 'moderation'));
-- A moderator's reason (up to 200 characters) fits whole beside what it is about.
ALTER TABLE notices DROP CONSTRAINT notices_detail_check;
ALTER TABLE notices ADD CONSTRAINT notices_detail_check CHECK (length(detail) <= 320);
