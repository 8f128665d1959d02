-- Console webhooks page: duplicate deliveries of the last 24 hours per provider and event type. Only events delivered
-- more than once are indexed, so the summary reads those instead of the whole inbox.
CREATE INDEX webhook_inbox_redelivered ON webhook_inbox (last_delivered_at) WHERE delivery_count > 1;
