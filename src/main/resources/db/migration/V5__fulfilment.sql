-- The relay's claim: every claim writes a fresh token, so a relay whose lease ran out (and whose rows another
-- relay took over) can no longer mark them done, failed or dead.
ALTER TABLE outbox_events ADD COLUMN claim_token uuid;

-- Effects of ORDER_PAID. Each has a business key with a UNIQUE constraint, so running a handler twice
-- (after a crash, a lost claim or a retry) finds its result already there instead of making a second one.
CREATE TABLE licenses (
    license_id text        PRIMARY KEY,
    order_id   text        NOT NULL UNIQUE REFERENCES orders (order_id),
    user_id    text        NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX licenses_by_user ON licenses (user_id, created_at DESC);

CREATE TABLE notifications (
    notification_id text        PRIMARY KEY,
    dedupe_key      text        NOT NULL UNIQUE,
    kind            text        NOT NULL,
    order_id        text        NOT NULL REFERENCES orders (order_id),
    user_id         text        NOT NULL,
    created_at      timestamptz NOT NULL
);
CREATE INDEX notifications_by_order ON notifications (order_id);

CREATE TABLE loyalty_ledger (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    text        NOT NULL,
    order_id   text        NOT NULL REFERENCES orders (order_id),
    reason     text        NOT NULL,
    points     bigint      NOT NULL CHECK (points >= 0),
    created_at timestamptz NOT NULL,
    CONSTRAINT loyalty_ledger_once_per_order_and_reason UNIQUE (order_id, reason)
);
CREATE INDEX loyalty_ledger_by_user ON loyalty_ledger (user_id, created_at DESC);
