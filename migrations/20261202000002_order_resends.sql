-- Orders whose produce outcome was unknown (the broker's answer did not come in time): acknowledged to
-- their buyers, perhaps not in Kafka. A worker re-sends each until the broker acknowledges it, then deletes
-- the row. Kept in Postgres, not Redis: Redis here keeps nothing on disk, and a lost row would be a lost
-- acknowledged order.
CREATE TABLE order_resends (
    order_id   BIGINT PRIMARY KEY,
    user_id    BIGINT NOT NULL,
    voucher_id BIGINT NOT NULL,
    ts         BIGINT NOT NULL,
    queued_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX order_resends_queued ON order_resends (queued_at, order_id);
