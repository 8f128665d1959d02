-- Payment attempts. The provider key is fixed when the attempt is created and reused on every retry,
-- resume and reconciliation of the same operation, so the provider can never charge twice for it.
CREATE TABLE payments (
    payment_id               text           PRIMARY KEY,
    order_id                 text           NOT NULL REFERENCES orders (order_id),
    user_id                  text           NOT NULL,
    status                   text           NOT NULL
        CHECK (status IN ('CREATED', 'PENDING', 'SUCCEEDED', 'FAILED', 'CANCELED', 'UNKNOWN')),
    amount                   numeric(14, 2) NOT NULL,
    currency                 text           NOT NULL,
    provider                 text           NOT NULL,
    provider_idempotency_key text           NOT NULL UNIQUE,
    provider_payment_id      text,
    payment_method_token     text           NOT NULL,
    idempotency_record_id    bigint,
    failure_reason           text,
    created_at               timestamptz    NOT NULL,
    updated_at               timestamptz    NOT NULL,
    CONSTRAINT payments_provider_payment UNIQUE (provider, provider_payment_id)
);
-- At most one unresolved attempt per order, and at most one that succeeded.
CREATE UNIQUE INDEX payments_one_open_per_order ON payments (order_id) WHERE status IN ('CREATED', 'PENDING', 'UNKNOWN');
CREATE UNIQUE INDEX payments_one_success_per_order ON payments (order_id) WHERE status = 'SUCCEEDED';
CREATE INDEX payments_by_order ON payments (order_id, created_at);
CREATE INDEX payments_unresolved ON payments (updated_at) WHERE status IN ('CREATED', 'PENDING', 'UNKNOWN');

-- Every accepted state change of an order or a payment, for the console's timeline.
CREATE TABLE state_transitions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subject_type text        NOT NULL CHECK (subject_type IN ('order', 'payment')),
    subject_id   text        NOT NULL,
    from_status  text,
    to_status    text        NOT NULL,
    cause        text        NOT NULL,
    occurred_at  timestamptz NOT NULL
);
CREATE INDEX state_transitions_by_subject ON state_transitions (subject_type, subject_id, id);
