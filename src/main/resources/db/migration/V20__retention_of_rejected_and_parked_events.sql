-- Retention removes REJECTED inbox events after the same time as processed and ignored ones (by processed_at, which
-- a rejection sets), so the partial index it walks covers them too. PENDING_MATCH events are removed after their
-- own, longer window by received_at, read through webhook_inbox_by_status (status, received_at DESC).
DROP INDEX webhook_inbox_finished;
CREATE INDEX webhook_inbox_finished ON webhook_inbox (processed_at) WHERE status IN ('PROCESSED', 'IGNORED', 'REJECTED');
