-- Transactional outbox: written in the transaction of the state change it announces, delivered at least once.
CREATE TABLE outbox_events (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_type      text        NOT NULL,
    aggregate_type  text        NOT NULL,
    aggregate_id    text        NOT NULL,
    payload         jsonb       NOT NULL,
    status          text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DONE', 'DEAD')),
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text,
    created_at      timestamptz NOT NULL,
    processed_at    timestamptz,
    CONSTRAINT outbox_events_once_per_aggregate UNIQUE (event_type, aggregate_type, aggregate_id)
);
CREATE INDEX outbox_events_due ON outbox_events (next_attempt_at, id) WHERE status = 'PENDING';
CREATE INDEX outbox_events_by_aggregate ON outbox_events (aggregate_type, aggregate_id);
CREATE INDEX outbox_events_done ON outbox_events (processed_at) WHERE status = 'DONE';
CREATE INDEX outbox_events_by_status_time ON outbox_events (status, created_at DESC);
