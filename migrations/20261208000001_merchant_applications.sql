-- Merchant onboarding (商家入驻): a shopper applies with the business's details; an operator approves it
-- (the account becomes a merchant and the shop opens, in the same transaction) or rejects it with a
-- reason the applicant reads. Every application is kept, decided or not: the queue shows an applicant's
-- earlier rejections, and the audit log points at them.
CREATE TABLE merchant_applications (
    id            BIGSERIAL PRIMARY KEY,
    applicant_id  BIGINT NOT NULL REFERENCES users (id),
    business_name TEXT NOT NULL CHECK (length(business_name) BETWEEN 1 AND 64),
    type_id       BIGINT NOT NULL REFERENCES shop_types (id),
    address       TEXT NOT NULL CHECK (length(address) BETWEEN 4 AND 128),
    longitude     DOUBLE PRECISION NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    latitude      DOUBLE PRECISION NOT NULL CHECK (latitude BETWEEN -85.05112878 AND 85.05112878),
    -- The business licence's unified social credit code (统一社会信用代码, GB 32100-2015); its check
    -- character is verified by the application before it gets here.
    licence_no    TEXT NOT NULL CHECK (licence_no ~ '^[0-9A-HJ-NPQRTUWXY]{18}$'),
    -- A photo of the shop front, uploaded by the applicant (the orphan sweep keeps it).
    shop_front    TEXT NOT NULL CHECK (shop_front LIKE '/uploads/%'),
    status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
    -- Why, as the operator gave it: required for a rejection, the applicant reads it.
    reason        TEXT CHECK (length(reason) BETWEEN 1 AND 200),
    decided_by    BIGINT REFERENCES users (id),
    decided_at    TIMESTAMPTZ,
    -- The shop an approval opened (gone if its owner removed it before it had any history).
    shop_id       BIGINT REFERENCES shops (id) ON DELETE SET NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((status = 'pending') = (decided_at IS NULL) AND (decided_at IS NULL) = (decided_by IS NULL)),
    CHECK (status <> 'rejected' OR reason IS NOT NULL)
);
-- One open application per person: a second waits for the first's decision.
CREATE UNIQUE INDEX merchant_applications_one_open ON merchant_applications (applicant_id) WHERE status = 'pending';
CREATE INDEX merchant_applications_queue ON merchant_applications (id) WHERE status = 'pending';
CREATE INDEX merchant_applications_of ON merchant_applications (applicant_id, id DESC);

-- The applicant is told the decision in the inbox.
ALTER TABLE notices DROP CONSTRAINT notices_kind_check;
ALTER TABLE notices ADD CONSTRAINT notices_kind_check
    CHECK (kind IN ('order_paid', 'order_closing', 'order_closed', 'order_cancelled', 'order_refunded',
                    'order_redeemed', 'review_reply', 'new_follower', 'merchant_application'));
