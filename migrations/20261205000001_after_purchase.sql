-- After the purchase: a buyer cancels an unpaid order, has a paid unused coupon refunded any time (with a
-- reason), and an unused coupon whose validity ends is refunded by itself. Every charge and refund is a
-- money movement of its own row, so what an order took is charged − refunded, exactly.

-- Cancelled by the buyer before paying (closed is the pay deadline's doing).
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check
    CHECK (status IN ('unpaid', 'paid', 'used', 'closed', 'cancelled', 'refunded'));

-- How long a bought coupon can be used, in days from payment: one of a few fixed lengths, so that each
-- length's expiry checks fall due in the order they are sent (one delayed topic per length).
ALTER TABLE vouchers ADD COLUMN valid_days INT NOT NULL DEFAULT 30 CHECK (valid_days IN (7, 30, 90, 180, 365));

-- The last moment a paid coupon can be used; past it an unused one is refunded.
ALTER TABLE orders ADD COLUMN use_by TIMESTAMPTZ;
-- Coupons paid before validity existed get the default length from now, not from their payment: none is
-- refunded the moment this runs.
UPDATE orders SET use_by = GREATEST(paid_at, now()) + interval '30 days' WHERE paid_at IS NOT NULL;
ALTER TABLE orders ADD CONSTRAINT orders_paid_has_use_by CHECK (status <> 'paid' OR use_by IS NOT NULL);
CREATE INDEX orders_paid_use_by ON orders (use_by) WHERE status = 'paid';

-- The money taken for an order: at most one charge per order (a repeated click charges nothing).
CREATE TABLE charges (
    order_id     BIGINT PRIMARY KEY REFERENCES orders (id),
    amount_cents BIGINT NOT NULL CHECK (amount_cents >= 0),
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- Every order paid so far was charged when it was paid; one paid after closing was charged as it was refunded.
INSERT INTO charges (order_id, amount_cents, created_at)
SELECT id, amount_cents, paid_at FROM orders WHERE paid_at IS NOT NULL;
INSERT INTO charges (order_id, amount_cents, created_at)
SELECT r.order_id, r.amount_cents, r.created_at FROM refunds r ON CONFLICT (order_id) DO NOTHING;

-- Why the money went back: the buyer asked (with their reason), the coupon expired unused, or the payment
-- arrived after the order had closed. `restocked`: the coupon went back to its sale (one still running).
ALTER TABLE refunds ADD COLUMN cause TEXT NOT NULL DEFAULT 'paid_late'
    CHECK (cause IN ('requested', 'expired', 'paid_late'));
ALTER TABLE refunds ADD COLUMN restocked BOOLEAN NOT NULL DEFAULT false;
-- A flash coupon's refund still to be told to Redis (the coupon back on sale, or its buyer let go): set in the
-- refund's transaction, cleared once Redis has it, so a Redis failure in between is retried by the sweeper.
ALTER TABLE refunds ADD COLUMN redis_pending BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX refunds_redis_pending ON refunds (created_at) WHERE redis_pending;
ALTER TABLE refunds ADD CONSTRAINT refunds_charged FOREIGN KEY (order_id) REFERENCES charges (order_id);
