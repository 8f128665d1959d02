-- Eight new webhook events in one statement, as the service sends them when eight events waited for a statement
-- (webhook.KnownPaymentSettlement, decision 0049); otherwise as webhook-event.sql, which sends the same statement for
-- one event. pgbench -M prepared -D tag=T on a database seeded as bench/webhook-cost-benchmark.py seeds it; a
-- transaction here is eight events.
SELECT lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n1, lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n2, lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n3, lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n4, lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n5, lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n6, lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n7, lpad(nextval('bench_pgbench_payment')::text, 8, '0') AS n8 \gset
WITH settings AS (
    SELECT set_config('lock_timeout', '2000ms', true) AS lock_timeout, CAST('SUCCEEDED' AS text) AS target,
           CAST('ORDER_PAID' AS text) AS announcement, CAST('webhook' AS text) AS cause),
event AS (
    SELECT s.target, s.announcement, s.cause, v.*
      FROM settings s,
           (VALUES (CAST('sandbox' AS text), CAST('evt_' || (:tag)::text || '_' || (:n1)::text AS text), CAST('payment.succeeded' AS text), CAST('sbx_bench_' || (:n1)::text AS text), CAST(now() AS timestamptz),
                         CAST('1500.00' AS numeric), CAST('RUB' AS text), CAST(now() AS timestamptz), CAST('{"id":"evt_' || (:tag)::text || '_' || (:n1)::text || '","type":"payment.succeeded","payment":"sbx_bench_' || (:n1)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB"}' AS jsonb), CAST(NULL AS text)),
                        (CAST('sandbox' AS text), CAST('evt_' || (:tag)::text || '_' || (:n2)::text AS text), CAST('payment.succeeded' AS text), CAST('sbx_bench_' || (:n2)::text AS text), CAST(now() AS timestamptz),
                         CAST('1500.00' AS numeric), CAST('RUB' AS text), CAST(now() AS timestamptz), CAST('{"id":"evt_' || (:tag)::text || '_' || (:n2)::text || '","type":"payment.succeeded","payment":"sbx_bench_' || (:n2)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB"}' AS jsonb), CAST(NULL AS text)),
                        (CAST('sandbox' AS text), CAST('evt_' || (:tag)::text || '_' || (:n3)::text AS text), CAST('payment.succeeded' AS text), CAST('sbx_bench_' || (:n3)::text AS text), CAST(now() AS timestamptz),
                         CAST('1500.00' AS numeric), CAST('RUB' AS text), CAST(now() AS timestamptz), CAST('{"id":"evt_' || (:tag)::text || '_' || (:n3)::text || '","type":"payment.succeeded","payment":"sbx_bench_' || (:n3)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB"}' AS jsonb), CAST(NULL AS text)),
                        (CAST('sandbox' AS text), CAST('evt_' || (:tag)::text || '_' || (:n4)::text AS text), CAST('payment.succeeded' AS text), CAST('sbx_bench_' || (:n4)::text AS text), CAST(now() AS timestamptz),
                         CAST('1500.00' AS numeric), CAST('RUB' AS text), CAST(now() AS timestamptz), CAST('{"id":"evt_' || (:tag)::text || '_' || (:n4)::text || '","type":"payment.succeeded","payment":"sbx_bench_' || (:n4)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB"}' AS jsonb), CAST(NULL AS text)),
                        (CAST('sandbox' AS text), CAST('evt_' || (:tag)::text || '_' || (:n5)::text AS text), CAST('payment.succeeded' AS text), CAST('sbx_bench_' || (:n5)::text AS text), CAST(now() AS timestamptz),
                         CAST('1500.00' AS numeric), CAST('RUB' AS text), CAST(now() AS timestamptz), CAST('{"id":"evt_' || (:tag)::text || '_' || (:n5)::text || '","type":"payment.succeeded","payment":"sbx_bench_' || (:n5)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB"}' AS jsonb), CAST(NULL AS text)),
                        (CAST('sandbox' AS text), CAST('evt_' || (:tag)::text || '_' || (:n6)::text AS text), CAST('payment.succeeded' AS text), CAST('sbx_bench_' || (:n6)::text AS text), CAST(now() AS timestamptz),
                         CAST('1500.00' AS numeric), CAST('RUB' AS text), CAST(now() AS timestamptz), CAST('{"id":"evt_' || (:tag)::text || '_' || (:n6)::text || '","type":"payment.succeeded","payment":"sbx_bench_' || (:n6)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB"}' AS jsonb), CAST(NULL AS text)),
                        (CAST('sandbox' AS text), CAST('evt_' || (:tag)::text || '_' || (:n7)::text AS text), CAST('payment.succeeded' AS text), CAST('sbx_bench_' || (:n7)::text AS text), CAST(now() AS timestamptz),
                         CAST('1500.00' AS numeric), CAST('RUB' AS text), CAST(now() AS timestamptz), CAST('{"id":"evt_' || (:tag)::text || '_' || (:n7)::text || '","type":"payment.succeeded","payment":"sbx_bench_' || (:n7)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB"}' AS jsonb), CAST(NULL AS text)),
                        (CAST('sandbox' AS text), CAST('evt_' || (:tag)::text || '_' || (:n8)::text AS text), CAST('payment.succeeded' AS text), CAST('sbx_bench_' || (:n8)::text AS text), CAST(now() AS timestamptz),
                         CAST('1500.00' AS numeric), CAST('RUB' AS text), CAST(now() AS timestamptz), CAST('{"id":"evt_' || (:tag)::text || '_' || (:n8)::text || '","type":"payment.succeeded","payment":"sbx_bench_' || (:n8)::text || '","status":"SUCCEEDED","amount":"1500.00","currency":"RUB"}' AS jsonb), CAST(NULL AS text))) AS v(provider, event_id, event_type, provider_payment_id, created_at, amount,
                              currency, now, payload, traceparent)),
payment AS (
    SELECT e.event_id, p.payment_id, p.order_id, p.user_id, p.status, p.idempotency_record_id
      FROM event e
      JOIN payments p ON p.provider = e.provider AND p.provider_payment_id = e.provider_payment_id
                     AND p.amount = e.amount AND p.currency = e.currency
     WHERE NOT EXISTS (SELECT 1 FROM webhook_inbox i WHERE i.provider = e.provider AND i.event_id = e.event_id)
     ORDER BY p.payment_id
       FOR UPDATE OF p),
inbox AS (
    INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at,
        payload, status, reason, payment_id, received_at, last_delivered_at, processed_at)
    SELECT e.provider, e.event_id, e.event_type, e.provider_payment_id, e.created_at, e.payload,
           CASE WHEN p.status IN ('CREATED', 'PENDING', 'REQUIRES_ACTION', 'UNKNOWN') THEN 'PROCESSED' ELSE 'IGNORED' END,
           CASE WHEN p.status IN ('CREATED', 'PENDING', 'REQUIRES_ACTION', 'UNKNOWN') THEN NULL
                ELSE 'stale or repeated (payment is ' || p.status || ')' END,
           p.payment_id, e.now, e.now, e.now
      FROM event e JOIN payment p ON p.event_id = e.event_id
    ON CONFLICT (provider, event_id) DO NOTHING
    RETURNING event_id, status),
payment_moved AS (
    UPDATE payments t SET status = e.target, updated_at = e.now
      FROM event e JOIN payment p ON p.event_id = e.event_id JOIN inbox i ON i.event_id = e.event_id
     WHERE t.payment_id = p.payment_id AND i.status = 'PROCESSED'
    RETURNING e.event_id, t.payment_id, t.order_id, t.user_id, p.status AS from_status),
payment_transition AS (
    INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref,
        occurred_at)
    SELECT 'payment', m.payment_id, m.from_status, e.target, e.cause, e.event_id, e.now
      FROM event e JOIN payment_moved m ON m.event_id = e.event_id),
order_before AS (
    SELECT m.event_id, o.order_id, o.status
      FROM event e JOIN payment_moved m ON m.event_id = e.event_id
      JOIN orders o ON o.order_id = m.order_id
     WHERE e.target = 'SUCCEEDED'
     ORDER BY o.order_id
       FOR UPDATE OF o),
order_moved AS (
    UPDATE orders t SET status = 'PAID', updated_at = e.now
      FROM event e JOIN order_before b ON b.event_id = e.event_id
     WHERE t.order_id = b.order_id AND b.status IN ('AWAITING_PAYMENT')
    RETURNING e.event_id, t.order_id, b.status AS from_status),
order_transition AS (
    INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, cause_ref,
        occurred_at)
    SELECT 'order', o.order_id, o.from_status, 'PAID', e.cause, e.event_id, e.now
      FROM event e JOIN order_moved o ON o.event_id = e.event_id),
announced AS (
    INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, next_attempt_at, created_at,
        traceparent)
    SELECT e.announcement, 'order', o.order_id,
           jsonb_build_object('orderId', o.order_id, 'paymentId', m.payment_id, 'userId', m.user_id),
           e.now, e.now, e.traceparent
      FROM event e JOIN order_moved o ON o.event_id = e.event_id
      JOIN payment_moved m ON m.event_id = e.event_id
    ON CONFLICT (event_type, aggregate_type, aggregate_id) DO NOTHING)
SELECT i.event_id, i.status, p.payment_id, EXISTS (SELECT 1 FROM idempotency_records r WHERE r.id = p.idempotency_record_id AND r.status = 'PROCESSING') AS record_open
  FROM inbox i
  JOIN payment p ON p.event_id = i.event_id;
