-- Order-id worker numbers, leased by server instances (app/src/ids.rs). Postgres, not Redis, hands them out:
-- a lease must survive Redis losing its data, or two live instances could mint the same ids.
CREATE TABLE id_leases (
    worker     INTEGER PRIMARY KEY CHECK (worker BETWEEN 0 AND 1023),
    holder     TEXT,
    expires_at TIMESTAMPTZ NOT NULL DEFAULT '-infinity'
);
INSERT INTO id_leases (worker) SELECT g FROM generate_series(0, 1023) AS g;
