-- Every request has an id of the service's own (request_id, unique); the X-Request-Id a client sent, when it sent a
-- usable one, is kept beside it as the client's (any client may choose any, so two users' requests may share one).
-- Rows written before keep what they had: request_id then held the client's id whenever it sent a usable one.
-- Byte order like every text column (V19), so that the console's "starts with" search is a range on the index.
ALTER TABLE idempotency_request_log ADD COLUMN client_request_id text COLLATE "C";
ALTER TABLE idempotency_conflicts ADD COLUMN client_request_id text COLLATE "C";

-- The console's search by a client's id; most requests carry none.
CREATE INDEX idempotency_request_log_by_client_request_id ON idempotency_request_log (client_request_id)
    WHERE client_request_id IS NOT NULL;
CREATE INDEX idempotency_conflicts_by_client_request_id ON idempotency_conflicts (client_request_id)
    WHERE client_request_id IS NOT NULL;

-- A record keeps its first request's client id too: a client whose request died unanswered knows no other id.
ALTER TABLE idempotency_records ADD COLUMN client_request_id text COLLATE "C";
CREATE INDEX idempotency_records_by_client_request_id ON idempotency_records (client_request_id)
    WHERE client_request_id IS NOT NULL;
