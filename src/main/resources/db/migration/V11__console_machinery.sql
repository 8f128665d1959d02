-- Console webhooks page: duplicate deliveries of the last 24 hours per provider and event type. Only events delivered
-- more than once are indexed, so the summary reads those instead of the whole inbox.
CREATE INDEX webhook_inbox_redelivered ON webhook_inbox (last_delivered_at) WHERE delivery_count > 1;

-- Console outbox page: RETRYING events (PENDING with an attempt behind them), oldest first, and their count, without
-- walking a large backlog of events never tried. An event enters it when the relay first claims it.
CREATE INDEX outbox_events_retrying ON outbox_events (created_at, id) WHERE status = 'PENDING' AND attempts > 0;
