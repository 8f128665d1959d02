-- Catalog: stock is NULL for unlimited goods; the CHECK makes a negative stock impossible
-- even if a caller forgot the conditional update.
CREATE TABLE products (
    product_id text PRIMARY KEY,
    name       text           NOT NULL,
    kind       text           NOT NULL CHECK (kind IN ('DIGITAL', 'PHYSICAL')),
    price      numeric(12, 2) NOT NULL CHECK (price >= 0),
    currency   text           NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    stock      integer        CHECK (stock >= 0)
);

CREATE TABLE orders (
    order_id   text           PRIMARY KEY,
    user_id    text           NOT NULL,
    status     text           NOT NULL CHECK (status IN ('AWAITING_PAYMENT', 'PAID', 'FULFILLED', 'CANCELED')),
    total      numeric(14, 2) NOT NULL,
    currency   text           NOT NULL,
    request_id text           NOT NULL,
    created_at timestamptz    NOT NULL,
    updated_at timestamptz    NOT NULL
);
-- Order ids are time-ordered, so (user_id, order_id DESC) serves "newest first" keyset pages.
CREATE INDEX orders_by_user ON orders (user_id, order_id DESC);

CREATE TABLE order_items (
    order_id   text           NOT NULL REFERENCES orders (order_id) ON DELETE CASCADE,
    line_no    integer        NOT NULL,
    product_id text           NOT NULL REFERENCES products (product_id),
    quantity   integer        NOT NULL CHECK (quantity BETWEEN 1 AND 100),
    unit_price numeric(12, 2) NOT NULL,
    PRIMARY KEY (order_id, line_no)
);

CREATE TABLE idempotency_records (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id          text        NOT NULL,
    operation        text        NOT NULL,
    idempotency_key  text        NOT NULL,
    fingerprint      text        NOT NULL,
    status           text        NOT NULL CHECK (status IN ('PROCESSING', 'COMPLETED', 'FAILED')),
    recovery_point   text        NOT NULL,
    lease_expires_at timestamptz,
    response_status  integer,
    response_headers jsonb,
    response_body    bytea,
    resource_type    text,
    resource_id      text,
    request_id       text        NOT NULL,
    replay_count     integer     NOT NULL DEFAULT 0,
    last_replayed_at timestamptz,
    created_at       timestamptz NOT NULL,
    completed_at     timestamptz,
    expires_at       timestamptz NOT NULL,
    CONSTRAINT idempotency_records_scope UNIQUE (user_id, operation, idempotency_key),
    CONSTRAINT idempotency_records_finished_have_response
        CHECK (status = 'PROCESSING' OR (response_status IS NOT NULL AND response_body IS NOT NULL AND completed_at IS NOT NULL))
);
CREATE INDEX idempotency_records_by_key ON idempotency_records (idempotency_key);
CREATE INDEX idempotency_records_by_user ON idempotency_records (user_id, created_at DESC);
CREATE INDEX idempotency_records_by_time ON idempotency_records (created_at DESC, id DESC);
CREATE INDEX idempotency_records_processing ON idempotency_records (lease_expires_at) WHERE status = 'PROCESSING';
CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_at) WHERE status <> 'PROCESSING';
CREATE INDEX idempotency_records_by_resource ON idempotency_records (resource_type, resource_id);

-- Key reuse with another payload: kept as evidence for support (who, when, both fingerprints).
CREATE TABLE idempotency_conflicts (
    id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    record_id               bigint      NOT NULL,
    user_id                 text        NOT NULL,
    operation               text        NOT NULL,
    idempotency_key         text        NOT NULL,
    original_fingerprint    text        NOT NULL,
    conflicting_fingerprint text        NOT NULL,
    request_id              text        NOT NULL,
    created_at              timestamptz NOT NULL
);
CREATE INDEX idempotency_conflicts_by_time ON idempotency_conflicts (created_at DESC, id DESC);
CREATE INDEX idempotency_conflicts_by_user ON idempotency_conflicts (user_id, created_at DESC);
CREATE INDEX idempotency_conflicts_by_key ON idempotency_conflicts (idempotency_key);
CREATE INDEX idempotency_conflicts_by_record ON idempotency_conflicts (record_id);
