-- The statements the service sends for one new webhook event (a signed payment.succeeded for a PENDING payment whose
-- order awaits payment), in one transaction, as webhook.WebhookInbox, payment.PaymentRows, platform.StateMachine,
-- checkout.OrderSettlement, outbox.Outbox, payment.PaymentService.finishSettled and idempotency.PostgresIdempotencyStore
-- send them:
--   1. the inbox row, ON CONFLICT DO NOTHING, with the transaction's lock timeout set in the same statement;
--   2. the payment, by provider payment id;
--   3.-4. the payment's move to SUCCEEDED (a conditional UPDATE of the locked row) and its transition;
--   5.-6. the order's move to PAID and its transition;
--   7. the ORDER_PAID outbox row;
--   8.-9. the payment read again and the operation's idempotency record completed unless already finished (it is:
--      the sandbox answered the payment's creation, so the UPDATE changes nothing);
--   10. the inbox row's outcome.
-- Not here: the delivery log row, which the service writes later in one batch per second.
-- Which payment: the next of a sequence the benchmark starts after the service's own (bench_pgbench_payment), fetched
-- by one more statement; -D tag=T names the events.
SELECT lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n \gset
BEGIN;
INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at, payload, status,
    received_at, last_delivered_at)
SELECT 'sandbox', 'evt_' || (:tag)::text || '_' || (:n)::text, 'payment.succeeded', 'sbx_bench_' || (:n)::text, now(),
    CAST('{"id":"evt_' || (:tag)::text || '_' || (:n)::text || '","type":"payment.succeeded","created":"2026-12-05T08:00:00Z","data":{"object":{"id":"sbx_bench_' || (:n)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB","metadata":{"order_id":"ord_bench_' || (:n)::text || '"}}}}' AS jsonb),
    'RECEIVED', now(), now()
  FROM (SELECT set_config('lock_timeout', '2000ms', true)) AS lock_waits
ON CONFLICT (provider, event_id) DO NOTHING
RETURNING id \gset inbox_
SELECT payment_id, order_id, user_id, status, amount, currency, provider, provider_idempotency_key,
       provider_payment_id, payment_method_token, idempotency_record_id, created_at
  FROM payments WHERE provider = 'sandbox' AND provider_payment_id = 'sbx_bench_' || (:n)::text;
UPDATE payments t SET status = 'SUCCEEDED', updated_at = now()
  FROM (SELECT payment_id, status FROM payments WHERE payment_id = 'pay_bench_' || (:n)::text FOR UPDATE) old
 WHERE t.payment_id = old.payment_id AND old.status IN ('CREATED', 'REQUIRES_ACTION', 'PENDING', 'UNKNOWN')
RETURNING old.status;
INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref, occurred_at)
VALUES ('payment', 'pay_bench_' || (:n)::text, 'PENDING', 'SUCCEEDED', 'webhook', 'evt_' || (:tag)::text || '_' || (:n)::text, now());
UPDATE orders t SET status = 'PAID', updated_at = now()
  FROM (SELECT order_id, status FROM orders WHERE order_id = 'ord_bench_' || (:n)::text FOR UPDATE) old
 WHERE t.order_id = old.order_id AND old.status IN ('AWAITING_PAYMENT')
RETURNING old.status;
INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref, occurred_at)
VALUES ('order', 'ord_bench_' || (:n)::text, 'AWAITING_PAYMENT', 'PAID', 'webhook', 'evt_' || (:tag)::text || '_' || (:n)::text, now());
INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, next_attempt_at, created_at)
VALUES ('ORDER_PAID', 'order', 'ord_bench_' || (:n)::text,
        CAST('{"orderId":"ord_bench_' || (:n)::text || '","paymentId":"pay_bench_' || (:n)::text || '","userId":"u-bench"}' AS jsonb),
        now(), now())
ON CONFLICT (event_type, aggregate_type, aggregate_id) DO NOTHING;
SELECT payment_id, order_id, user_id, status, amount, currency, provider, provider_idempotency_key,
       provider_payment_id, payment_method_token, idempotency_record_id, created_at
  FROM payments WHERE payment_id = 'pay_bench_' || (:n)::text;
UPDATE idempotency_records
   SET status = 'COMPLETED', recovery_point = 'finished', lease_expires_at = NULL, response_status = 201,
       response_headers = CAST('{}' AS jsonb), response_body = '\x7b7d', resource_type = 'payment',
       resource_id = 'pay_bench_' || (:n)::text, completed_at = now(), expires_at = now() + interval '1 day'
 WHERE id = (SELECT idempotency_record_id FROM payments WHERE payment_id = 'pay_bench_' || (:n)::text)
   AND status = 'PROCESSING' AND lease_expires_at <= now();
UPDATE webhook_inbox SET status = 'PROCESSED', reason = NULL, last_error = NULL, payment_id = 'pay_bench_' || (:n)::text,
       processed_at = now()
 WHERE id = (:inbox_id)::bigint;
COMMIT;
