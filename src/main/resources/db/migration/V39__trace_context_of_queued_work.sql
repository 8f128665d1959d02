-- The W3C traceparent of the change that queued the row, so that the work which later picks the row up continues the
-- same trace: an outbox event's effects continue the request that announced it, a sandbox webhook delivery continues
-- the payment that caused it. NULL where none was known (a row from before this migration, a change outside a trace).
ALTER TABLE outbox_events ADD COLUMN traceparent text;
ALTER TABLE sandbox_webhook_deliveries ADD COLUMN traceparent text;
