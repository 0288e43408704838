-- The merchant console: orders carry their shop (a shop's orders page by keyset on the time-ordered id),
-- paid orders carry a redemption code the customer shows at the counter, and a redeemed order is 'used'.

ALTER TABLE orders ADD COLUMN shop_id BIGINT REFERENCES shops (id);
UPDATE orders o SET shop_id = v.shop_id FROM vouchers v WHERE v.id = o.voucher_id;
ALTER TABLE orders ALTER COLUMN shop_id SET NOT NULL;

-- The app sets shop_id on every insert; an insert that leaves it out (a test, a hand-written fix) gets the
-- voucher's shop, so the column can never disagree with the coupon it was bought from.
CREATE FUNCTION orders_shop_from_voucher() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.shop_id := (SELECT shop_id FROM vouchers WHERE id = NEW.voucher_id);
    RETURN NEW;
END $$;
CREATE TRIGGER orders_shop_from_voucher BEFORE INSERT ON orders
    FOR EACH ROW WHEN (NEW.shop_id IS NULL) EXECUTE FUNCTION orders_shop_from_voucher();

-- 12 random digits, drawn by the app from the OS's generator when the order is paid; unique among all orders.
ALTER TABLE orders ADD COLUMN redeem_code TEXT UNIQUE CHECK (redeem_code ~ '^[0-9]{12}$');
ALTER TABLE orders ADD COLUMN used_at TIMESTAMPTZ;

ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check
    CHECK (status IN ('unpaid', 'paid', 'used', 'closed', 'refunded'));
ALTER TABLE orders ADD CONSTRAINT orders_used_has_time CHECK (status <> 'used' OR used_at IS NOT NULL);

-- A redeemed coupon is still the buyer's one coupon of that sale.
DROP INDEX orders_flash_one_per_user;
CREATE UNIQUE INDEX orders_flash_one_per_user ON orders (user_id, voucher_id)
    WHERE kind = 'flash' AND status IN ('unpaid', 'paid', 'used');

-- Orders paid before this migration get their code now (random enough for a backfill; new ones use the OS).
UPDATE orders SET redeem_code = lpad((('x' || substr(md5(gen_random_uuid()::text), 1, 15))::bit(60)::bigint
                                      % 1000000000000)::text, 12, '0')
WHERE status = 'paid';

-- A shop's orders, newest first (ids are time-ordered), and its orders by day for the charts.
CREATE INDEX orders_shop_id ON orders (shop_id, id DESC);
CREATE INDEX orders_shop_created ON orders (shop_id, created_at);

-- How every grab of a sale ended (outcome = the /metrics label), added up by the instances every second:
-- the funnel's top half, which lasts beyond Redis' memory.
CREATE TABLE sale_outcomes (
    voucher_id BIGINT NOT NULL REFERENCES vouchers (id) ON DELETE CASCADE,
    outcome    TEXT NOT NULL,
    n          BIGINT NOT NULL CHECK (n >= 0),
    PRIMARY KEY (voucher_id, outcome)
);
