-- A new webhook event inserts its inbox row, moves its payment (a status change, so every index of payments gets a
-- new entry) and writes its outbox row: each index on those tables is written once more per event. These go, served
-- by a reordered unique constraint or by a partial index that the common case never enters (decision 0047).

-- The console's search by event id runs on the once-per-event constraint, led by the event id.
ALTER TABLE webhook_inbox DROP CONSTRAINT webhook_inbox_once_per_event,
    ADD CONSTRAINT webhook_inbox_once_per_event UNIQUE (event_id, provider);
DROP INDEX webhook_inbox_search_event;

-- No statement orders events by type.
DROP INDEX webhook_inbox_by_type;

-- A status filter looks for events that need a look; processed events, the most, are found through the time index.
DROP INDEX webhook_inbox_by_status;
CREATE INDEX webhook_inbox_unprocessed ON webhook_inbox (status, received_at DESC, id DESC) WHERE status <> 'PROCESSED';

-- Retention finds finished events through the time index: an event is processed after it is received.
DROP INDEX webhook_inbox_finished;

-- An event matched to a payment is found by payment_id; only the unmatched ones by the provider's payment id.
DROP INDEX webhook_inbox_by_payment;
CREATE INDEX webhook_inbox_unmatched ON webhook_inbox (provider, provider_payment_id) WHERE payment_id IS NULL;

-- The console's search by provider payment id runs on the unique constraint, led by that id.
ALTER TABLE payments DROP CONSTRAINT payments_provider_payment,
    ADD CONSTRAINT payments_provider_payment UNIQUE (provider_payment_id, provider);
DROP INDEX payments_search_provider_payment;

-- An aggregate's outbox rows are found through the once-per-aggregate constraint, led by the aggregate.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_once_per_aggregate,
    ADD CONSTRAINT outbox_events_once_per_aggregate UNIQUE (aggregate_type, aggregate_id, event_type);
DROP INDEX outbox_events_by_aggregate;
