-- The console's one search box: any id a customer or a colleague pastes, exact or by its first characters. Each id
-- column gets a text_pattern_ops index (byte order whatever the database's collation), which answers both "= id"
-- and the range "id ~>=~ prefix AND id ~<~ prefix || U+10FFFF" that the search uses for a prefix.
CREATE INDEX orders_search_id ON orders (order_id text_pattern_ops);
CREATE INDEX orders_search_user ON orders (user_id text_pattern_ops);
CREATE INDEX payments_search_id ON payments (payment_id text_pattern_ops);
CREATE INDEX payments_search_provider_payment ON payments (provider_payment_id text_pattern_ops)
    WHERE provider_payment_id IS NOT NULL;
CREATE INDEX payments_search_provider_key ON payments (provider_idempotency_key text_pattern_ops);
CREATE INDEX webhook_inbox_search_event ON webhook_inbox (event_id text_pattern_ops);
CREATE INDEX idempotency_conflicts_search_request ON idempotency_conflicts (request_id text_pattern_ops);
CREATE INDEX idempotency_records_search_request ON idempotency_records (request_id text_pattern_ops);
CREATE INDEX idempotency_records_search_user ON idempotency_records (user_id text_pattern_ops);
-- The key's pattern index answers the equality lookups the plain one served, so it takes that one's place.
CREATE INDEX idempotency_records_search_key ON idempotency_records (idempotency_key text_pattern_ops);
DROP INDEX IF EXISTS idempotency_records_by_key;

-- The overview counts requests per outcome over the last 24 hours from the request log, and its cards open the list
-- of exactly those requests, newest first.
CREATE INDEX idempotency_request_log_by_outcome ON idempotency_request_log (outcome, received_at DESC, id DESC);
CREATE INDEX idempotency_request_log_by_time ON idempotency_request_log (received_at DESC, id DESC);

-- Every delivery of a webhook event, with what it was answered, for the console's event page. A delivery whose
-- signature failed has no event (nothing of it is read), so it is counted, never listed here.
CREATE TABLE webhook_deliveries (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    inbox_id     bigint      NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
    delivered_at timestamptz NOT NULL,
    outcome      text        NOT NULL,
    http_status  integer     NOT NULL
);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (inbox_id, delivered_at, id);
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (outcome, delivered_at);
