-- The built-in sandbox payment provider plays an external party: it keeps its own tables and shares none
-- with the service's payments.

-- One sandbox payment per Idempotency-Key: a concurrent or repeated create with the same key meets this
-- constraint and answers with the payment already there.
CREATE TABLE sandbox_payments (
    id                   text           PRIMARY KEY,
    idempotency_key      text           NOT NULL,
    request_fingerprint  text           NOT NULL,
    status               text           NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
    amount               numeric(14, 2) NOT NULL,
    currency             text           NOT NULL,
    payment_method_token text           NOT NULL,
    order_id             text,
    metadata             jsonb          NOT NULL,
    created_at           timestamptz    NOT NULL,
    updated_at           timestamptz    NOT NULL,
    CONSTRAINT sandbox_payments_one_per_key UNIQUE (idempotency_key)
);
CREATE INDEX sandbox_payments_by_order ON sandbox_payments (order_id, created_at) WHERE order_id IS NOT NULL;

-- The sandbox's webhook outbox: one row per delivery of an event (tok_duplicate_webhooks gives one event
-- three copies), written in the transaction of the payment, sent at least once by the delivery worker.
CREATE TABLE sandbox_webhook_deliveries (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        text        NOT NULL,
    copy            smallint    NOT NULL,
    payment_id      text        NOT NULL REFERENCES sandbox_payments (id),
    event_type      text        NOT NULL,
    body            text        NOT NULL,
    status          text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'DEAD')),
    attempts        integer     NOT NULL DEFAULT 0,
    due_at          timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    last_error      text,
    created_at      timestamptz NOT NULL,
    delivered_at    timestamptz,
    CONSTRAINT sandbox_webhook_deliveries_one_per_copy UNIQUE (event_id, copy)
);
CREATE INDEX sandbox_webhook_deliveries_due ON sandbox_webhook_deliveries (next_attempt_at, id) WHERE status = 'PENDING';
CREATE INDEX sandbox_webhook_deliveries_by_payment ON sandbox_webhook_deliveries (payment_id, due_at);

-- Values the sandbox generates once per install, such as the webhook signing secret when none is configured.
CREATE TABLE sandbox_settings (
    name  text PRIMARY KEY,
    value text NOT NULL
);
