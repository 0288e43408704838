-- Haodian core schema: accounts, catalog, vouchers, orders, refunds.
-- Money is stored in fen (1/100 yuan) as BIGINT; scores are tenths (45 = 4.5 stars).

CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    phone         TEXT UNIQUE,
    email         TEXT UNIQUE,
    nickname      TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL DEFAULT 'shopper' CHECK (role IN ('shopper', 'merchant')),
    avatar_url    TEXT,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Every account can be found by at least one login identifier.
    CHECK (phone IS NOT NULL OR email IS NOT NULL),
    -- E-mail is stored lower-cased so the UNIQUE constraint is case-insensitive.
    CHECK (email IS NULL OR email = lower(email))
);

CREATE TABLE shop_types (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    icon       TEXT NOT NULL DEFAULT '',
    sort_order INT  NOT NULL DEFAULT 0
);

CREATE TABLE shops (
    id              BIGSERIAL PRIMARY KEY,
    name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    type_id         BIGINT NOT NULL REFERENCES shop_types (id),
    owner_id        BIGINT REFERENCES users (id),
    images          TEXT[] NOT NULL DEFAULT '{}',
    area            TEXT NOT NULL DEFAULT '',
    address         TEXT NOT NULL,
    longitude       DOUBLE PRECISION NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    latitude        DOUBLE PRECISION NOT NULL CHECK (latitude BETWEEN -85.05112878 AND 85.05112878),
    avg_price_cents BIGINT NOT NULL DEFAULT 0 CHECK (avg_price_cents >= 0),
    score           SMALLINT NOT NULL DEFAULT 0 CHECK (score BETWEEN 0 AND 50),
    sold            INT NOT NULL DEFAULT 0 CHECK (sold >= 0),
    comments        INT NOT NULL DEFAULT 0 CHECK (comments >= 0),
    open_hours      TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX shops_type_score ON shops (type_id, score DESC, id);
CREATE INDEX shops_owner ON shops (owner_id);
CREATE INDEX shops_name_lower ON shops (lower(name) text_pattern_ops);

-- One table for both kinds: a flash sale is a voucher with stock and a sale window.
CREATE TABLE vouchers (
    id                 BIGSERIAL PRIMARY KEY,
    shop_id            BIGINT NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
    title              TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 128),
    sub_title          TEXT NOT NULL DEFAULT '',
    rules              TEXT NOT NULL DEFAULT '',
    pay_value_cents    BIGINT NOT NULL CHECK (pay_value_cents >= 0),
    actual_value_cents BIGINT NOT NULL CHECK (actual_value_cents >= 0),
    kind               TEXT NOT NULL CHECK (kind IN ('normal', 'flash')),
    status             TEXT NOT NULL DEFAULT 'on' CHECK (status IN ('on', 'off')),
    stock              INT CHECK (stock >= 0),
    begin_at           TIMESTAMPTZ,
    end_at             TIMESTAMPTZ,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (kind = 'normal'
           OR (stock IS NOT NULL AND begin_at IS NOT NULL AND end_at IS NOT NULL AND end_at > begin_at))
);
CREATE INDEX vouchers_shop ON vouchers (shop_id);

-- Order ids are 64-bit time-ordered ids minted by the app (unique across instances), never a sequence.
CREATE TABLE orders (
    id           BIGINT PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id),
    voucher_id   BIGINT NOT NULL REFERENCES vouchers (id),
    kind         TEXT NOT NULL CHECK (kind IN ('normal', 'flash')),
    status       TEXT NOT NULL DEFAULT 'unpaid' CHECK (status IN ('unpaid', 'paid', 'closed', 'refunded')),
    amount_cents BIGINT NOT NULL CHECK (amount_cents >= 0),
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    paid_at      TIMESTAMPTZ,
    closed_at    TIMESTAMPTZ,
    refunded_at  TIMESTAMPTZ,
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- One live flash-sale order per user and voucher. Closed/refunded orders drop out of the index so a
-- buyer whose unpaid order was closed may grab the coupon again.
CREATE UNIQUE INDEX orders_flash_one_per_user ON orders (user_id, voucher_id)
    WHERE kind = 'flash' AND status IN ('unpaid', 'paid');
CREATE INDEX orders_user_created ON orders (user_id, created_at DESC);
CREATE INDEX orders_unpaid_created ON orders (created_at) WHERE status = 'unpaid';
CREATE INDEX orders_voucher ON orders (voucher_id);

CREATE TABLE refunds (
    id           BIGSERIAL PRIMARY KEY,
    order_id     BIGINT NOT NULL UNIQUE REFERENCES orders (id),
    amount_cents BIGINT NOT NULL CHECK (amount_cents >= 0),
    reason       TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
