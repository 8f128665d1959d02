-- Webhook inbox: one row per provider event, however often it is delivered. RECEIVED exists only inside the
-- transaction that applies the event; committed rows are PROCESSED, IGNORED or FAILED (applied again on the next
-- delivery or by an admin's reprocess).
CREATE TABLE webhook_inbox (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider            text        NOT NULL,
    event_id            text        NOT NULL,
    event_type          text        NOT NULL,
    provider_payment_id text,
    event_created_at    timestamptz,
    payload             jsonb       NOT NULL,
    status              text        NOT NULL CHECK (status IN ('RECEIVED', 'PROCESSED', 'IGNORED', 'FAILED')),
    reason              text,
    last_error          text,
    delivery_count      integer     NOT NULL DEFAULT 1 CHECK (delivery_count >= 1),
    received_at         timestamptz NOT NULL,
    last_delivered_at   timestamptz NOT NULL,
    processed_at        timestamptz,
    CONSTRAINT webhook_inbox_once_per_event UNIQUE (provider, event_id)
);
CREATE INDEX webhook_inbox_by_time ON webhook_inbox (received_at DESC, id DESC);
CREATE INDEX webhook_inbox_by_status ON webhook_inbox (status, received_at DESC);
CREATE INDEX webhook_inbox_by_type ON webhook_inbox (provider, event_type, received_at DESC);
CREATE INDEX webhook_inbox_by_payment ON webhook_inbox (provider, provider_payment_id);
