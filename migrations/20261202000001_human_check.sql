-- The grab funnel's human check: a flash sale may ask each buyer to solve a slider puzzle before the grab
-- (on unless the merchant turns it off; it spreads a crowd's clicks over a few hundred ms and costs a bot
-- one solved puzzle per grab). Meaningless for normal coupons.
ALTER TABLE vouchers ADD COLUMN human_check BOOLEAN NOT NULL DEFAULT true;
