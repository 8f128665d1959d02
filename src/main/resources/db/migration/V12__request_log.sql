-- Every request that reaches the idempotency engine, for support: which retry (by the client's request id) got which
-- answer. Rows are appended in batches off the request path and kept bounded per record (the first and the last N);
-- they go with their record.
CREATE TABLE idempotency_request_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    record_id   bigint      NOT NULL REFERENCES idempotency_records (id) ON DELETE CASCADE,
    request_id  text        NOT NULL,
    received_at timestamptz NOT NULL,
    outcome     text        NOT NULL CHECK (outcome IN ('EXECUTED', 'REPLAYED', 'CONFLICT', 'IN_PROGRESS', 'REFUSED')),
    http_status integer
);
CREATE INDEX idempotency_request_log_by_record ON idempotency_request_log (record_id, received_at, id);
CREATE INDEX idempotency_request_log_by_request_id ON idempotency_request_log (request_id text_pattern_ops);

-- What the client sent, so that a key-reuse conflict can show field by field what changed. Cart bodies as sent;
-- a payment body's paymentMethodToken is replaced by its last four characters before it is stored.
ALTER TABLE idempotency_records ADD COLUMN request_body jsonb;
ALTER TABLE idempotency_conflicts ADD COLUMN refused_body jsonb;
