-- The operators' audit log: every operator action (who, what, on what, when and why), written in the same
-- transaction as the action itself, so there is no action without its row. Append-only: a trigger refuses
-- every UPDATE and DELETE, whoever asks (the application included). Only wiping the demo data
-- (`server seed --reset`, a TRUNCATE by the tables' owner) removes rows.
CREATE TABLE operator_actions (
    id          BIGSERIAL PRIMARY KEY,
    operator_id BIGINT NOT NULL REFERENCES users (id),
    -- What was done, as `subject.verb` ('review.hide', 'review.keep').
    action      TEXT NOT NULL CHECK (action ~ '^[a-z_]+\.[a-z_]+$'),
    subject_id  BIGINT NOT NULL,
    reason      TEXT,
    at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX operator_actions_newest ON operator_actions (id DESC);
CREATE INDEX operator_actions_by_operator ON operator_actions (operator_id, id DESC);

CREATE FUNCTION operator_actions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER operator_actions_append_only BEFORE UPDATE OR DELETE ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_append_only();
