-- Grabs the order writer could not turn into orders, kept so the buyer is told why (the page asks for the
-- order's status) instead of waiting on "queued" for ever. No foreign keys: the user or sale may be gone.
CREATE TABLE order_failures (
    order_id   BIGINT PRIMARY KEY,
    user_id    BIGINT NOT NULL,
    voucher_id BIGINT NOT NULL,
    reason     TEXT NOT NULL CHECK (reason IN ('sold_out', 'already_holds', 'sale_gone', 'no_such_user')),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX order_failures_user ON order_failures (user_id, created_at DESC);
