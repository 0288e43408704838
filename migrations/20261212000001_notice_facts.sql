-- A notice keeps what it is about as facts (JSON: the order's code, the shop's name, the moderator's
-- reason…) rather than as a sentence, and is worded when read, in the reader's language. `detail` stays
-- for the notices written before, which were stored already worded.
ALTER TABLE notices ADD COLUMN facts JSONB CHECK (length(facts::TEXT) <= 2000);
