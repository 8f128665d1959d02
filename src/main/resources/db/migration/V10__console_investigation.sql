-- The same cart of one user (same fingerprint) in time order: the operation page's "another operation with the same
-- cart under a different key" and the user view's possible double submissions, without walking the user's records.
CREATE INDEX idempotency_records_same_cart ON idempotency_records (user_id, fingerprint, created_at);

-- Refusals and unfinished operations are a small part of the records: these keep the console's "status = FAILED" or
-- "PROCESSING" lists (of everyone, or of one user) from walking past every COMPLETED record to fill a page.
CREATE INDEX idempotency_records_not_completed_by_time ON idempotency_records (status, created_at DESC, id DESC)
    WHERE status <> 'COMPLETED';
CREATE INDEX idempotency_records_not_completed_by_user ON idempotency_records (user_id, status, created_at DESC, id DESC)
    WHERE status <> 'COMPLETED';
