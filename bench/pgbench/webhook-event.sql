-- The statements the service sends for one new webhook event (a signed payment.succeeded for a PENDING payment whose
-- order awaits payment), as webhook.KnownPaymentSettlement sends them (decision 0037): one
-- statement finds and locks the payment with the event's amount and currency as conditions, inserts the inbox row
-- already decided, moves the payment and the order, writes both transitions and the ORDER_PAID outbox row, and reads
-- whether the payment's idempotency record is still open (it is not: the sandbox answered the payment's creation, so
-- the engine is not called). One statement is atomic on its own: the service sends no BEGIN or COMMIT around it.
-- Not here: the delivery log row, which the service writes later in one batch per second.
-- Which payment: the next of a sequence the benchmark starts after the service's own (bench_pgbench_payment), fetched
-- by one more statement; -D tag=T names the events.
SELECT lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n \gset
WITH event AS (
    SELECT set_config('lock_timeout', '2000ms', true) AS lock_timeout,
           CAST('sandbox' AS text) AS provider, CAST('evt_' || (:tag)::text || '_' || (:n)::text AS text) AS event_id,
           CAST('payment.succeeded' AS text) AS event_type, CAST('sbx_bench_' || (:n)::text AS text) AS provider_payment_id,
           CAST(now() AS timestamptz) AS created_at, CAST('1500.00' AS numeric) AS amount, CAST('RUB' AS text) AS currency,
           CAST('SUCCEEDED' AS text) AS target,
           CAST('webhook' AS text) AS cause, CAST('evt_' || (:tag)::text || '_' || (:n)::text AS text) AS cause_ref,
           CAST(now() AS timestamptz) AS now),
payment AS (
    SELECT p.payment_id, p.order_id, p.user_id, p.status, p.idempotency_record_id
      FROM event e
      JOIN payments p ON p.provider = e.provider AND p.provider_payment_id = e.provider_payment_id
                     AND p.amount = e.amount AND p.currency = e.currency
     WHERE NOT EXISTS (SELECT 1 FROM webhook_inbox i WHERE i.provider = e.provider AND i.event_id = e.event_id)
     LIMIT 1
       FOR UPDATE OF p),
inbox AS (
    INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at,
        payload, status, reason, payment_id, received_at, last_delivered_at, processed_at)
    SELECT e.provider, e.event_id, e.event_type, e.provider_payment_id, e.created_at,
           CAST('{"id":"evt_' || (:tag)::text || '_' || (:n)::text || '","type":"payment.succeeded","created":"2026-12-05T08:00:00Z","data":{"object":{"id":"sbx_bench_' || (:n)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB","metadata":{"order_id":"ord_bench_' || (:n)::text || '"}}}}' AS jsonb),
           CASE WHEN p.status IN ('CREATED', 'PENDING', 'REQUIRES_ACTION', 'UNKNOWN') THEN 'PROCESSED' ELSE 'IGNORED' END,
           CASE WHEN p.status IN ('CREATED', 'PENDING', 'REQUIRES_ACTION', 'UNKNOWN') THEN NULL
                ELSE 'stale or repeated (payment is ' || p.status || ')' END,
           p.payment_id, e.now, e.now, e.now
      FROM event e, payment p
    ON CONFLICT (provider, event_id) DO NOTHING
    RETURNING status),
payment_moved AS (
    UPDATE payments t SET status = e.target, updated_at = e.now
      FROM event e, payment p, inbox i
     WHERE t.payment_id = p.payment_id AND i.status = 'PROCESSED'
    RETURNING t.payment_id, t.order_id, t.user_id, p.status AS from_status),
payment_transition AS (
    INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref, occurred_at)
    SELECT 'payment', m.payment_id, m.from_status, e.target, e.cause, e.cause_ref, e.now
      FROM event e, payment_moved m),
order_before AS (
    SELECT o.order_id, o.status
      FROM event e, payment_moved m
      JOIN orders o ON o.order_id = m.order_id
     WHERE e.target = 'SUCCEEDED'
       FOR UPDATE OF o),
order_moved AS (
    UPDATE orders t SET status = 'PAID', updated_at = e.now
      FROM event e, order_before b
     WHERE t.order_id = b.order_id AND b.status IN ('AWAITING_PAYMENT')
    RETURNING t.order_id, b.status AS from_status),
order_transition AS (
    INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref, occurred_at)
    SELECT 'order', o.order_id, o.from_status, 'PAID', e.cause, e.cause_ref, e.now
      FROM event e, order_moved o),
announced AS (
    INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, next_attempt_at, created_at,
        traceparent)
    SELECT 'ORDER_PAID', 'order', o.order_id,
           jsonb_build_object('orderId', o.order_id, 'paymentId', m.payment_id, 'userId', m.user_id),
           e.now, e.now, NULL
      FROM event e, order_moved o, payment_moved m
    ON CONFLICT (event_type, aggregate_type, aggregate_id) DO NOTHING)
SELECT i.status, p.payment_id,
       EXISTS (SELECT 1 FROM idempotency_records r WHERE r.id = p.idempotency_record_id AND r.status = 'PROCESSING')
           AS record_open
  FROM inbox i
 CROSS JOIN payment p;
