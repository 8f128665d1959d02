-- Refunds of successful payments. The provider key is fixed when the refund is created and reused on every retry,
-- resume and reconciliation of the same refund, so the provider can never refund it twice.
CREATE TABLE refunds (
    refund_id                text           PRIMARY KEY,
    payment_id               text           NOT NULL REFERENCES payments (payment_id),
    order_id                 text           NOT NULL REFERENCES orders (order_id),
    requested_by             text           NOT NULL,
    status                   text           NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'UNKNOWN')),
    amount                   numeric(14, 2) NOT NULL CHECK (amount > 0),
    currency                 text           NOT NULL,
    reason                   text           NOT NULL
        CHECK (reason IN ('DUPLICATE', 'REQUESTED_BY_CUSTOMER', 'FRAUDULENT', 'OTHER')),
    note                     text           CHECK (char_length(note) <= 500),
    provider                 text           NOT NULL,
    provider_idempotency_key text           NOT NULL UNIQUE,
    provider_refund_id       text,
    idempotency_record_id    bigint,
    created_at               timestamptz    NOT NULL,
    updated_at               timestamptz    NOT NULL,
    CONSTRAINT refunds_provider_refund UNIQUE (provider, provider_refund_id)
);
CREATE INDEX refunds_by_payment ON refunds (payment_id, created_at);
CREATE INDEX refunds_by_order ON refunds (order_id, created_at);
CREATE INDEX refunds_unresolved ON refunds (updated_at) WHERE status IN ('PENDING', 'UNKNOWN');

-- What is taken from a payment by refunds: reserved counts the refunds that succeeded or are not final yet (one
-- conditional UPDATE reserves a refund's amount, so racing refunds never exceed the payment), refunded the ones that
-- succeeded. A failed refund gives its reservation back.
ALTER TABLE payments ADD COLUMN refund_reserved numeric(14, 2) NOT NULL DEFAULT 0;
ALTER TABLE payments ADD COLUMN refunded_amount numeric(14, 2) NOT NULL DEFAULT 0;
ALTER TABLE payments ADD CONSTRAINT payments_refunds_within_amount
    CHECK (refunded_amount >= 0 AND refunded_amount <= refund_reserved AND refund_reserved <= amount);

-- A payment refunded in full makes its order REFUNDED. EXPIRED is listed too, so that this constraint and the one of
-- the unpaid-order expiry agree in whichever order the two migrations run.
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check
    CHECK (status IN ('AWAITING_PAYMENT', 'PAID', 'FULFILLED', 'CANCELED', 'EXPIRED', 'REFUNDED'));

ALTER TABLE state_transitions DROP CONSTRAINT state_transitions_subject_type_check;
ALTER TABLE state_transitions ADD CONSTRAINT state_transitions_subject_type_check
    CHECK (subject_type IN ('order', 'payment', 'refund'));

-- The effects of ORDER_REFUNDED: a license is revoked (kept, with the time), the loyalty points are returned by a
-- negative entry (once per order: UNIQUE (order_id, reason)).
ALTER TABLE licenses ADD COLUMN revoked_at timestamptz;
ALTER TABLE loyalty_ledger DROP CONSTRAINT loyalty_ledger_points_check;
ALTER TABLE loyalty_ledger ADD CONSTRAINT loyalty_ledger_points_check
    CHECK (points >= 0 OR reason = 'ORDER_REFUNDED');

-- Every admin action says why, in the admin's words.
ALTER TABLE console_audit ADD COLUMN reason text CHECK (char_length(reason) <= 500);

-- The sandbox's refunds: one per Idempotency-Key; a payment's refunded total never exceeds its amount.
ALTER TABLE sandbox_payments ADD COLUMN refunded numeric(14, 2) NOT NULL DEFAULT 0;
ALTER TABLE sandbox_payments ADD CONSTRAINT sandbox_payments_refunds_within_amount
    CHECK (refunded >= 0 AND refunded <= amount);
CREATE TABLE sandbox_refunds (
    id                  text           PRIMARY KEY,
    idempotency_key     text           NOT NULL,
    request_fingerprint text           NOT NULL,
    payment_id          text           NOT NULL REFERENCES sandbox_payments (id),
    status              text           NOT NULL CHECK (status IN ('SUCCEEDED', 'FAILED')),
    amount              numeric(14, 2) NOT NULL,
    currency            text           NOT NULL,
    metadata            jsonb          NOT NULL,
    created_at          timestamptz    NOT NULL,
    CONSTRAINT sandbox_refunds_one_per_key UNIQUE (idempotency_key)
);
CREATE INDEX sandbox_refunds_by_payment ON sandbox_refunds (payment_id, created_at);
