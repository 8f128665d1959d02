-- Fills a migrated onceguard database with a production-sized history for the operator console: by default
-- 1,000,000 idempotency records over the last 30 days (the last 24 h busier than the average day) with the orders,
-- items, payments, state transitions, outbox events and effects they led to, 200,000 webhook inbox events,
-- 100,000 outbox events, the last 24 h of job runs and hourly activity, and a console audit trail.
--
--   psql -h 127.0.0.1 -U postgres -d <database> -f bench/console-seed.sql
--   psql ... -v records=20000 -v inbox_events=4000 -v outbox_events=2000 -f bench/console-seed.sql   (smaller)
--   psql ... -v reset=1 -f bench/console-seed.sql   (empties the tables it fills first)
--
-- It refuses a database that already holds operations, orders, payments, inbox or outbox events, job runs or audit
-- entries, unless run with -v reset=1, which TRUNCATEs exactly the tables it fills (never the catalog or the
-- sandbox's tables). The schema must be migrated first (start the service once against the database).
-- Every value is derived from the row number by hashing, so two runs give the same data relative to their start.
--
-- The history is what the service itself writes, shaped as a deployment that keeps finished idempotency records
-- 30 days (onceguard.idempotency.retention=30d) and runs the default retention of 7 days for delivered outbox
-- events: the outbox holds the ORDER_PAID events of the latest paid orders, older paid orders are FULFILLED with
-- their effects. Of every five records, three are create-order and two create-payment (paying the first two
-- orders, seconds later, as the same user). Payments go 80 % to stripe, 20 % to the sandbox; 5 % are declined,
-- 15 % succeed in the provider's answer and the rest are PENDING until a webhook makes them SUCCEEDED. The newest
-- few hundred create-payment records are PROCESSING (provider call in flight or outcome unknown), a third of them
-- past their lease. About 8 % of records were replayed, 1.5 % of carts were sent twice under two keys seconds
-- apart (possible double submissions), 3 % of one cart in five met OUT_OF_STOCK (FAILED), and some keys were
-- reused with another payload (idempotency_conflicts).

\set ON_ERROR_STOP on
\if :{?records}
\else
\set records 1000000
\endif
\if :{?inbox_events}
\else
\set inbox_events 200000
\endif
\if :{?outbox_events}
\else
\set outbox_events 100000
\endif
\if :{?users}
\else
\set users 60000
\endif
\if :{?processing}
\else
\set processing 300
\endif
\if :{?reset}
\else
\set reset 0
\endif

SELECT clock_timestamp() AS seed_started, now() AS anchor,
       :records - floor(:records * 0.06)::bigint AS older_records,
       :records - :processing * 5 / 2 AS last_settled_record \gset
\echo console-seed: :records records, :inbox_events inbox events, :outbox_events outbox events, :users users

SELECT EXISTS (SELECT 1 FROM idempotency_records) OR EXISTS (SELECT 1 FROM orders)
           OR EXISTS (SELECT 1 FROM payments) OR EXISTS (SELECT 1 FROM webhook_inbox)
           OR EXISTS (SELECT 1 FROM outbox_events) OR EXISTS (SELECT 1 FROM job_runs)
           OR EXISTS (SELECT 1 FROM console_audit) AS has_data \gset
\if :has_data
\if :reset
\echo console-seed: reset=1, emptying the tables it fills
TRUNCATE idempotency_records, idempotency_conflicts, orders, order_items, payments, state_transitions, outbox_events,
         licenses, notifications, loyalty_ledger, webhook_inbox, job_runs, activity_hourly, console_audit,
         idempotency_request_log, webhook_deliveries
         RESTART IDENTITY;
\else
DO $$ BEGIN
    RAISE EXCEPTION 'console-seed: this database already holds operations, orders or events; use an empty one, '
        'or run with -v reset=1 to empty the tables this script fills';
END $$;
\endif
\endif

-- One session, one big transaction: room for its sorts and hashes, no wait for each commit's flush.
SET work_mem = '256MB';
SET maintenance_work_mem = '256MB';
SET synchronous_commit = off;

\timing on

-- Deterministic pseudo-random numbers in [0, 1) and time-ordered ids like the service's (Ids: 48 bits of
-- milliseconds then 80 random bits, Crockford base32).
CREATE FUNCTION pg_temp.u01(n bigint, salt bigint) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (hashint8extended(n, salt) & 9007199254740991)::float8 / 9007199254740992 $$;

-- Written as one expression so that PostgreSQL inlines it (a function with a FROM is called row by row).
CREATE FUNCTION pg_temp.ulid(m bigint, r1 bigint, r2 bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 45) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 40) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 35) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 30) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 25) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 20) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 15) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 10) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 5) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((m >> 0) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r1 >> 35) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r1 >> 30) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r1 >> 25) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r1 >> 20) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r1 >> 15) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r1 >> 10) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r1 >> 5) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r1 >> 0) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r2 >> 35) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r2 >> 30) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r2 >> 25) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r2 >> 20) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r2 >> 15) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r2 >> 10) & 31)::int + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r2 >> 5) & 31)::int + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((r2 >> 0) & 31)::int + 1, 1)
$$;

CREATE FUNCTION pg_temp.ulid_at(at timestamptz, n bigint, salt bigint) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT pg_temp.ulid((extract(epoch FROM at) * 1000)::bigint, hashint8extended(n, salt), hashint8extended(n, salt + 1)) $$;

CREATE FUNCTION pg_temp.uuid(n bigint, salt text) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT md5(salt || n)::uuid::text $$;

-- The carts people buy (prices of the demo catalog); cart 8 holds the sold-out mug and meets OUT_OF_STOCK.
CREATE TEMP TABLE seed_carts (cart int PRIMARY KEY, items_text text NOT NULL, total numeric(14, 2) NOT NULL,
                              digital boolean NOT NULL, fingerprint text,
                              items jsonb GENERATED ALWAYS AS (items_text::jsonb) STORED);
INSERT INTO seed_carts (cart, items_text, total, digital) VALUES
    (0, '[{"productId":"p-184","quantity":1,"unitPrice":"1500.00"}]', 1500.00, true),
    (1, '[{"productId":"p-220","quantity":1,"unitPrice":"4900.00"}]', 4900.00, true),
    (2, '[{"productId":"p-310","quantity":1,"unitPrice":"8990.00"}]', 8990.00, false),
    (3, '[{"productId":"p-184","quantity":1,"unitPrice":"1500.00"},{"productId":"p-220","quantity":1,"unitPrice":"4900.00"}]', 6400.00, true),
    (4, '[{"productId":"p-184","quantity":2,"unitPrice":"1500.00"}]', 3000.00, true),
    (5, '[{"productId":"p-310","quantity":1,"unitPrice":"8990.00"},{"productId":"p-184","quantity":1,"unitPrice":"1500.00"}]', 10490.00, true),
    (6, '[{"productId":"p-220","quantity":1,"unitPrice":"4900.00"},{"productId":"p-310","quantity":2,"unitPrice":"8990.00"}]', 22880.00, true),
    (7, '[{"productId":"p-184","quantity":3,"unitPrice":"1500.00"}]', 4500.00, true),
    (8, '[{"productId":"p-404","quantity":1,"unitPrice":"990.00"}]', 990.00, false);
-- The fingerprint the service computes: SHA-256 of the canonical {"body": request, "path": {}}.
UPDATE seed_carts c SET fingerprint = encode(sha256(convert_to(
    '{"body":{"currency":"RUB","items":' || (SELECT json_agg(json_build_object('productId', e ->> 'productId',
        'quantity', (e ->> 'quantity')::int) ORDER BY n)::text FROM jsonb_array_elements(c.items) WITH ORDINALITY x(e, n))
    || '},"path":{}}', 'UTF8')), 'hex');

-- Every record's time: 94 % spread over days 30..1 ago, 6 % over the last 24 h, with a daily rhythm.
CREATE TEMP TABLE seed_ops AS
SELECT g, ((g - 1) % 5)::int AS p,
       CASE WHEN g <= :older_records THEN :'anchor'::timestamptz - interval '30 days'
            ELSE :'anchor'::timestamptz - interval '1 day' END
           + (u + 0.35 / (2 * pi()) * sin(2 * pi() * u)) * interval '1 day' AS created_at
  FROM generate_series(1, :records) g,
       LATERAL (SELECT CASE WHEN g <= :older_records THEN (g - 1)::float8 / :older_records * 29
                            ELSE (g - :older_records - 1)::float8 / (:records - :older_records) * (1 - 5.0 / 86400)
                       END AS u) w;

-- create-order records (three in five). A few users buy a lot: user n has a share falling with n.
CREATE TEMP TABLE seed_order AS
SELECT s.*,
       CASE WHEN failed THEN NULL ELSE 'ord_' || pg_temp.ulid_at(s.created_at, s.g, 21) END AS order_id
  FROM (SELECT o.g, o.p, o.created_at, double_submit,
               'user-' || lpad((1 + floor(:users * pg_temp.u01(CASE WHEN double_submit THEN o.g - 1 ELSE o.g END, 1) ^ 1.5))::int::text, 6, '0') AS user_id,
               CASE WHEN double_submit THEN floor(pg_temp.u01(o.g - 1, 2) * 8)::int
                    WHEN o.p = 2 AND pg_temp.u01(o.g, 4) < 0.03 THEN 8
                    ELSE floor(pg_temp.u01(o.g, 2) * 8)::int END AS cart,
               NOT double_submit AND o.p = 2 AND pg_temp.u01(o.g, 4) < 0.03 AS failed
          FROM (SELECT *, p = 2 AND pg_temp.u01(g, 3) < 0.015 AS double_submit FROM seed_ops WHERE p < 3) o) s;
ALTER TABLE seed_order ADD PRIMARY KEY (g);

-- create-payment records (two in five), each paying the order made three records (seconds) before.
CREATE TEMP TABLE seed_payment AS
SELECT x.*,
       CASE category WHEN 'created' THEN 'CREATED' WHEN 'unknown' THEN 'UNKNOWN' WHEN 'declined' THEN 'FAILED'
                     WHEN 'webhook_failed' THEN 'PENDING' ELSE 'SUCCEEDED' END AS status,
       CASE WHEN category IN ('created', 'unknown') THEN NULL
            WHEN provider = 'stripe' THEN 'pi_' || substr(md5('pi' || x.g), 1, 24)
            ELSE 'sbx_' || pg_temp.ulid_at(x.created_at, x.g, 31) END AS provider_payment_id,
       CASE category WHEN 'sync' THEN x.answered_at WHEN 'async' THEN x.settled_at END AS paid_at,
       CASE WHEN provider = 'stripe' THEN CASE WHEN category = 'declined' THEN 'pm_card_chargeDeclined' ELSE 'pm_card_visa' END
            WHEN category = 'declined' THEN 'tok_decline' WHEN category = 'sync' THEN 'tok_success' ELSE 'tok_pending' END
           AS token
  FROM (SELECT pr.g, pr.created_at, o.g AS order_g, o.order_id, o.user_id, o.cart, c.total,
               'pay_' || pg_temp.ulid_at(pr.created_at, pr.g, 23) AS payment_id,
               CASE WHEN pg_temp.u01(pr.g, 8) < 0.8 THEN 'stripe' ELSE 'sandbox' END AS provider,
               CASE WHEN pr.g > :last_settled_record THEN
                        CASE WHEN pg_temp.u01(pr.g, 6) < 0.5 THEN 'unknown' ELSE 'created' END
                    WHEN pg_temp.u01(pr.g, 5) < 0.05 THEN 'declined'
                    WHEN pg_temp.u01(pr.g, 5) < 0.20 THEN 'sync'
                    WHEN pg_temp.u01(pr.g, 5) >= 0.997 AND pr.created_at > :'anchor'::timestamptz - interval '1 day'
                        THEN 'webhook_failed'
                    ELSE 'async' END AS category,
               pr.created_at + (0.2 + 1.3 * pg_temp.u01(pr.g, 9)) * interval '1 second' AS answered_at,
               pr.created_at + (2 + 20 * pg_temp.u01(pr.g, 10)) * interval '1 second' AS settled_at
          FROM seed_ops pr
          JOIN seed_order o ON o.g = pr.g - 3
          JOIN seed_carts c ON c.cart = o.cart
         WHERE pr.p >= 3) x;
ALTER TABLE seed_payment ADD PRIMARY KEY (g);
CREATE INDEX ON seed_payment (order_g);

-- The ORDER_PAID events still in the outbox: those of the latest paid orders. The newest few wait for the relay,
-- a few recent ones are being retried, one in five hundred went DEAD; the rest are DONE.
CREATE TEMP TABLE seed_outbox AS
SELECT g, paid_at,
       CASE WHEN rank <= 40 THEN 'PENDING'
            WHEN rank <= 3000 AND pg_temp.u01(g, 12) < 0.02 THEN 'RETRYING'
            WHEN pg_temp.u01(g, 12) < 0.002 THEN 'DEAD'
            ELSE 'DONE' END AS state
  FROM (SELECT g, paid_at, row_number() OVER (ORDER BY paid_at DESC) AS rank FROM seed_payment WHERE paid_at IS NOT NULL) r
 WHERE rank <= :outbox_events;
ALTER TABLE seed_outbox ADD PRIMARY KEY (g);

-- Paid orders are FULFILLED once their event is DONE, or when it is older than the outbox keeps (retention).
CREATE TEMP TABLE seed_paid AS
SELECT p.g, p.order_id, p.user_id, p.cart, p.total, p.payment_id, p.paid_at,
       CASE WHEN ob.state IS NULL OR ob.state = 'DONE'
            THEN p.paid_at + (0.1 + 1.4 * pg_temp.u01(p.g, 13)) * interval '1 second' END AS fulfilled_at
  FROM seed_payment p LEFT JOIN seed_outbox ob ON ob.g = p.g
 WHERE p.paid_at IS NOT NULL;
ALTER TABLE seed_paid ADD PRIMARY KEY (g);

BEGIN;

-- Loading a million rows through every secondary index costs more than building the indexes afterwards: the indexes
-- that back no constraint are dropped inside this transaction and rebuilt from their own definitions before COMMIT
-- (whatever migrations made them), so a failure leaves the schema as it was.
CREATE TEMP TABLE seed_indexes AS
SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
  FROM pg_index i
 WHERE i.indrelid IN ('idempotency_records'::regclass, 'idempotency_conflicts'::regclass, 'orders'::regclass,
                      'payments'::regclass, 'state_transitions'::regclass, 'outbox_events'::regclass,
                      'licenses'::regclass, 'notifications'::regclass, 'loyalty_ledger'::regclass,
                      'webhook_inbox'::regclass, 'job_runs'::regclass, 'console_audit'::regclass,
                      'idempotency_request_log'::regclass, 'webhook_deliveries'::regclass)
   AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid);
SELECT 'DROP INDEX ' || name FROM seed_indexes \gexec

INSERT INTO orders (order_id, user_id, status, total, currency, request_id, idempotency_record_id, created_at,
                    updated_at)
SELECT o.order_id, o.user_id,
       CASE WHEN pd.fulfilled_at IS NOT NULL THEN 'FULFILLED' WHEN pd.paid_at IS NOT NULL THEN 'PAID'
            ELSE 'AWAITING_PAYMENT' END,
       c.total, 'RUB', pg_temp.uuid(o.g, 'request'), o.g, o.created_at,
       coalesce(pd.fulfilled_at, pd.paid_at, o.created_at)
  FROM seed_order o
  JOIN seed_carts c ON c.cart = o.cart
  LEFT JOIN seed_paid pd ON pd.g = o.g + 3
 WHERE NOT o.failed
 ORDER BY o.g;

INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price)
SELECT o.order_id, (n - 1)::int, e ->> 'productId', (e ->> 'quantity')::int, (e ->> 'unitPrice')::numeric
  FROM seed_order o
  JOIN seed_carts c ON c.cart = o.cart,
       jsonb_array_elements(c.items) WITH ORDINALITY x(e, n)
 WHERE NOT o.failed;

INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider, provider_idempotency_key,
                      provider_payment_id, payment_method_token, idempotency_record_id, failure_reason, created_at,
                      updated_at)
SELECT payment_id, order_id, user_id, status, total, 'RUB', provider, 'onceguard-' || payment_id, provider_payment_id, token,
       g, CASE WHEN category = 'declined' THEN 'card_declined' END, created_at,
       CASE category WHEN 'created' THEN created_at WHEN 'sync' THEN answered_at WHEN 'declined' THEN answered_at
                     WHEN 'async' THEN settled_at ELSE answered_at END
  FROM seed_payment
 ORDER BY g;

-- The records, in time order, with the very responses the service stores and replays.
INSERT INTO idempotency_records (id, user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                                 lease_expires_at, response_status, response_headers, response_body, resource_type,
                                 resource_id, request_id, replay_count, last_replayed_at, created_at, completed_at,
                                 expires_at)
OVERRIDING SYSTEM VALUE
SELECT r.g, r.user_id, r.operation, pg_temp.uuid(r.g, 'key'), r.fingerprint, r.status, r.recovery_point,
       r.lease_expires_at, r.response_status, r.response_headers, convert_to(r.body, 'UTF8'), r.resource_type,
       r.resource_id, pg_temp.uuid(r.g, 'request'), r.replay_count,
       CASE WHEN r.replay_count > 0 THEN r.completed_at + (1 + 40 * pg_temp.u01(r.g, 15)) * interval '1 second' END,
       r.created_at, r.completed_at, coalesce(r.completed_at, r.created_at) + interval '30 days'
  FROM (SELECT o.g, o.user_id, 'create-order' AS operation, c.fingerprint,
               CASE WHEN o.failed THEN 'FAILED' ELSE 'COMPLETED' END AS status, 'finished' AS recovery_point,
               NULL::timestamptz AS lease_expires_at,
               CASE WHEN o.failed THEN 409 ELSE 201 END AS response_status,
               CASE WHEN o.failed THEN '{"Content-Type": "application/problem+json"}'::jsonb
                    ELSE jsonb_build_object('Location', '/api/orders/' || o.order_id, 'Content-Type', 'application/json') END
                   AS response_headers,
               CASE WHEN o.failed
                    THEN '{"type":"https://onceguard.dev/problems/out-of-stock","title":"Out of stock","status":409,'
                         || '"detail":"Not enough stock of p-404 for 1 unit(s).","code":"OUT_OF_STOCK"}'
                    ELSE '{"orderId":"' || o.order_id || '","status":"AWAITING_PAYMENT","items":' || c.items_text
                         || ',"total":"' || to_char(c.total, 'FM9999999990.00') || '","currency":"RUB","createdAt":"'
                         || to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}'
               END AS body,
               CASE WHEN o.failed THEN NULL ELSE 'order' END AS resource_type, o.order_id AS resource_id,
               CASE WHEN pg_temp.u01(o.g, 14) < 0.08 THEN 1 + floor(3 * pg_temp.u01(o.g, 16))::int ELSE 0 END AS replay_count,
               o.created_at, o.created_at + (0.005 + 0.05 * pg_temp.u01(o.g, 17)) * interval '1 second' AS completed_at
          FROM seed_order o JOIN seed_carts c ON c.cart = o.cart
        UNION ALL
        SELECT p.g, p.user_id, 'create-payment',
               encode(sha256(convert_to('{"body":{"paymentMethodToken":"' || p.token
                   || '"},"path":{"orderId":"' || p.order_id || '"}}', 'UTF8')), 'hex'),
               CASE WHEN p.category IN ('created', 'unknown') THEN 'PROCESSING' ELSE 'COMPLETED' END,
               CASE p.category WHEN 'created' THEN 'payment_created' WHEN 'unknown' THEN 'outcome_unknown' ELSE 'finished' END,
               CASE WHEN p.category NOT IN ('created', 'unknown') THEN NULL
                    WHEN pg_temp.u01(p.g, 7) < 0.67 THEN :'anchor'::timestamptz + (5 + 25 * pg_temp.u01(p.g, 18)) * interval '1 second'
                    ELSE p.created_at + (:'anchor'::timestamptz - p.created_at) / 2 END,
               CASE WHEN p.category IN ('created', 'unknown') THEN NULL ELSE 201 END,
               CASE WHEN p.category IN ('created', 'unknown') THEN NULL
                    ELSE jsonb_build_object('Location', '/api/payments/' || p.payment_id, 'Content-Type', 'application/json') END,
               CASE WHEN p.category IN ('created', 'unknown') THEN NULL
                    ELSE '{"paymentId":"' || p.payment_id || '","orderId":"' || p.order_id || '","status":"'
                         || CASE p.category WHEN 'declined' THEN 'FAILED' WHEN 'sync' THEN 'SUCCEEDED' ELSE 'PENDING' END
                         || '","amount":"' || to_char(p.total, 'FM9999999990.00') || '","currency":"RUB","providerPaymentId":"'
                         || p.provider_payment_id || '","createdAt":"'
                         || to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}'
               END,
               'payment', p.payment_id,
               CASE WHEN pg_temp.u01(p.g, 14) < 0.08 THEN 1 + floor(3 * pg_temp.u01(p.g, 16))::int ELSE 0 END,
               p.created_at, CASE WHEN p.category IN ('created', 'unknown') THEN NULL ELSE p.answered_at END
          FROM seed_payment p) r
 ORDER BY r.g;
SELECT setval(pg_get_serial_sequence('idempotency_records', 'id'), :records);

-- Replays leave nothing but the count; a replay of a PROCESSING record was a 409, not a replay.
UPDATE idempotency_records SET replay_count = 0, last_replayed_at = NULL WHERE status = 'PROCESSING' AND replay_count > 0;

-- Keys reused with another cart: one create-order key in two hundred, minutes after the first request.
INSERT INTO idempotency_conflicts (record_id, user_id, operation, idempotency_key, original_fingerprint,
                                   conflicting_fingerprint, request_id, created_at)
SELECT o.g, o.user_id, 'create-order', pg_temp.uuid(o.g, 'key'), c.fingerprint, other.fingerprint,
       pg_temp.uuid(o.g, 'conflict'), o.created_at + (5 + 600 * pg_temp.u01(o.g, 19)) * interval '1 second'
  FROM seed_order o
  JOIN seed_carts c ON c.cart = o.cart
  JOIN seed_carts other ON other.cart = (o.cart + 1 + floor(6 * pg_temp.u01(o.g, 20))::int) % 8
 WHERE NOT o.failed AND pg_temp.u01(o.g, 19) < 0.005
 ORDER BY 8;

-- State transitions, in the order they happened (the console's timeline reads them by id).
INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status, cause, occurred_at)
SELECT subject_type, subject_id, from_status, to_status, cause, occurred_at
  FROM (SELECT 'payment' AS subject_type, payment_id AS subject_id, 'CREATED' AS from_status,
               CASE category WHEN 'declined' THEN 'FAILED' WHEN 'sync' THEN 'SUCCEEDED' WHEN 'unknown' THEN 'UNKNOWN'
                             ELSE 'PENDING' END AS to_status,
               CASE WHEN category = 'unknown' THEN 'provider outcome unknown' ELSE 'provider answer' END AS cause,
               answered_at AS occurred_at
          FROM seed_payment WHERE category <> 'created'
        UNION ALL
        SELECT 'payment', payment_id, 'PENDING', 'SUCCEEDED', 'webhook evt_' || pg_temp.uuid(g, 'event'), settled_at
          FROM seed_payment WHERE category = 'async'
        UNION ALL
        SELECT 'order', order_id, 'AWAITING_PAYMENT', 'PAID',
               CASE WHEN category = 'sync' THEN 'provider answer' ELSE 'webhook evt_' || pg_temp.uuid(g, 'event') END,
               paid_at
          FROM seed_payment WHERE paid_at IS NOT NULL
        UNION ALL
        SELECT 'order', order_id, 'PAID', 'FULFILLED', 'fulfilment', fulfilled_at
          FROM seed_paid WHERE fulfilled_at IS NOT NULL) t
 ORDER BY occurred_at;

INSERT INTO outbox_events (event_type, aggregate_type, aggregate_id, payload, status, attempts, next_attempt_at,
                           last_error, created_at, processed_at, claim_token)
SELECT 'ORDER_PAID', 'order', pd.order_id,
       jsonb_build_object('userId', pd.user_id, 'orderId', pd.order_id, 'paymentId', pd.payment_id),
       CASE ob.state WHEN 'RETRYING' THEN 'PENDING' ELSE ob.state END,
       CASE ob.state WHEN 'PENDING' THEN 0 WHEN 'DONE' THEN 1 WHEN 'DEAD' THEN 8
                     ELSE 1 + floor(6 * pg_temp.u01(ob.g, 24))::int END,
       CASE ob.state WHEN 'PENDING' THEN pd.paid_at WHEN 'DONE' THEN pd.paid_at + interval '60 seconds'
                     WHEN 'DEAD' THEN pd.paid_at + interval '25 minutes'
                     ELSE :'anchor'::timestamptz + (10 + 590 * pg_temp.u01(ob.g, 25)) * interval '1 second' END,
       CASE WHEN ob.state IN ('RETRYING', 'DEAD') THEN
                CASE floor(3 * pg_temp.u01(ob.g, 26))::int
                    WHEN 0 THEN 'loyalty_points: PSQLException (SQLState 40P01)'
                    WHEN 1 THEN 'license: PSQLException (SQLState 57014)'
                    ELSE 'notification: SocketTimeoutException' END END,
       pd.paid_at,
       CASE WHEN ob.state = 'DONE' THEN pd.fulfilled_at END,
       CASE WHEN ob.state IN ('DONE', 'RETRYING', 'DEAD') THEN md5('claim' || ob.g)::uuid END
  FROM seed_outbox ob JOIN seed_paid pd ON pd.g = ob.g
 ORDER BY pd.paid_at;

-- Effects of every fulfilled order: a licence for digital goods, the confirmation, loyalty points.
INSERT INTO licenses (license_id, order_id, user_id, created_at)
SELECT 'lic_' || pg_temp.ulid_at(pd.fulfilled_at, pd.g, 41), pd.order_id, pd.user_id, pd.fulfilled_at
  FROM seed_paid pd JOIN seed_carts c ON c.cart = pd.cart
 WHERE pd.fulfilled_at IS NOT NULL AND c.digital;

INSERT INTO notifications (notification_id, dedupe_key, kind, order_id, user_id, created_at)
SELECT 'ntf_' || pg_temp.ulid_at(pd.fulfilled_at, pd.g, 43), 'order-paid:' || pd.order_id, 'ORDER_CONFIRMATION',
       pd.order_id, pd.user_id, pd.fulfilled_at
  FROM seed_paid pd
 WHERE pd.fulfilled_at IS NOT NULL;

INSERT INTO loyalty_ledger (user_id, order_id, reason, points, created_at)
SELECT user_id, order_id, 'ORDER_PAID', floor(total / 100)::bigint, fulfilled_at
  FROM seed_paid WHERE fulfilled_at IS NOT NULL
 ORDER BY fulfilled_at;

-- The webhook inbox: one event per recent settled payment (PROCESSED when it moved the payment, IGNORED when the
-- provider's answer had said it already, FAILED while it could not be applied), duplicate deliveries counted on the
-- row, and the noise providers send: stale "pending" events, event types not acted on, unknown payments.
CREATE TEMP TABLE seed_hooked AS
SELECT p.*, row_number() OVER (ORDER BY p.created_at DESC) AS rank
  FROM seed_payment p WHERE category NOT IN ('created', 'unknown');

INSERT INTO webhook_inbox (provider, event_id, event_type, provider_payment_id, event_created_at, payload, status, reason,
                           last_error, delivery_count, received_at, last_delivered_at, processed_at)
SELECT provider, event_id, event_type, provider_payment_id, received_at - interval '150 milliseconds',
       CASE WHEN provider = 'stripe'
            THEN jsonb_build_object('id', event_id, 'object', 'event', 'type', event_type,
                     'created', floor(extract(epoch FROM received_at))::bigint,
                     'data', jsonb_build_object('object', jsonb_build_object('id', provider_payment_id,
                         'object', 'payment_intent', 'status', provider_status, 'amount', (total * 100)::bigint,
                         'currency', 'rub')))
            ELSE jsonb_build_object('id', event_id, 'type', event_type,
                     'created', to_char((received_at - interval '150 milliseconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                     'data', jsonb_build_object('object', jsonb_build_object('id', provider_payment_id,
                         'amount', to_char(total, 'FM9999999990.00'), 'status', upper(provider_status), 'currency', 'RUB')))
       END,
       status, reason,
       CASE WHEN status = 'FAILED' THEN 'LockTimeoutException: 55P03 canceling statement due to lock timeout' END,
       deliveries, received_at,
       received_at + (deliveries - 1) * (1 + 30 * pg_temp.u01(g, 27)) * interval '1 second',
       CASE WHEN status = 'FAILED' THEN NULL ELSE received_at + interval '20 milliseconds' END
  FROM (SELECT h.g, h.provider, h.total, h.provider_payment_id,
               'evt_' || pg_temp.uuid(h.g, 'event') AS event_id,
               CASE WHEN h.category = 'declined'
                    THEN CASE WHEN h.provider = 'stripe' THEN 'payment_intent.payment_failed' ELSE 'payment.canceled' END
                    ELSE CASE WHEN h.provider = 'stripe' THEN 'payment_intent.succeeded' ELSE 'payment.succeeded' END
               END AS event_type,
               CASE WHEN h.category = 'declined' THEN 'canceled' ELSE 'succeeded' END AS provider_status,
               CASE h.category WHEN 'async' THEN 'PROCESSED' WHEN 'webhook_failed' THEN 'FAILED' ELSE 'IGNORED' END AS status,
               CASE h.category WHEN 'sync' THEN 'stale or repeated (payment is SUCCEEDED)'
                               WHEN 'declined' THEN 'stale or repeated (payment is FAILED)' END AS reason,
               CASE WHEN h.category = 'webhook_failed' THEN 2 + floor(4 * pg_temp.u01(h.g, 28))::int
                    WHEN pg_temp.u01(h.g, 28) < 0.02 THEN 3
                    WHEN pg_temp.u01(h.g, 28) < 0.10 THEN 2 ELSE 1 END AS deliveries,
               CASE WHEN h.category = 'async' THEN h.settled_at
                    ELSE h.answered_at + (1 + 5 * pg_temp.u01(h.g, 29)) * interval '1 second' END AS received_at
          FROM seed_hooked h
         WHERE h.rank <= round(:inbox_events * 0.94)
        UNION ALL
        SELECT h.g, h.provider, h.total, h.provider_payment_id, 'evt_' || pg_temp.uuid(h.g, 'stale'),
               CASE WHEN h.provider = 'stripe' THEN 'payment_intent.processing' ELSE 'payment.pending' END,
               'processing', 'IGNORED', 'stale or repeated (payment is SUCCEEDED)', 1,
               coalesce(h.settled_at, h.answered_at) + (1 + 3 * pg_temp.u01(h.g, 30)) * interval '1 second'
          FROM seed_hooked h
         WHERE h.rank <= round(:inbox_events * 0.03) AND h.category IN ('sync', 'async')
        UNION ALL
        SELECT h.g, h.provider, h.total, h.provider_payment_id, 'evt_' || pg_temp.uuid(h.g, 'charge'),
               'charge.succeeded', 'succeeded', 'IGNORED', 'event type not handled', 1,
               coalesce(h.settled_at, h.answered_at) + interval '2 seconds'
          FROM seed_hooked h
         WHERE h.provider = 'stripe' AND h.rank > round(:inbox_events * 0.94)
           AND h.rank <= round(:inbox_events * 0.94) + round(:inbox_events * 0.02) / 0.8
        UNION ALL
        SELECT h.g, h.provider, h.total, CASE WHEN h.provider = 'stripe' THEN 'pi_' || substr(md5('other' || h.g), 1, 24)
                                              ELSE 'sbx_' || upper(substr(md5('other' || h.g), 1, 26)) END,
               'evt_' || pg_temp.uuid(h.g, 'unknown'),
               CASE WHEN h.provider = 'stripe' THEN 'payment_intent.succeeded' ELSE 'payment.succeeded' END,
               'succeeded', 'IGNORED', 'unknown payment', 1, h.created_at + interval '3 seconds'
          FROM seed_hooked h
         WHERE h.rank <= round(:inbox_events * 0.01)) e
 ORDER BY received_at;

-- Job runs of the last 24 h on two replicas. The relay records only runs that found work, one per burst of events.
INSERT INTO job_runs (job, replica, started_at, finished_at, outcome, counts, error)
SELECT job, replica, started_at, started_at + duration, outcome, counts, error
  FROM (SELECT 'lease-recovery' AS job,
               CASE WHEN n % 2 = 0 THEN 'onceguard-7d9f8c6b5-x2k4q' ELSE 'onceguard-7d9f8c6b5-p8m2z' END AS replica,
               :'anchor'::timestamptz - n * interval '15 seconds' AS started_at,
               (3 + 15 * pg_temp.u01(n, 51)) * interval '1 millisecond' AS duration, 'SUCCEEDED' AS outcome,
               jsonb_build_object('released', 0, 'reconciled', CASE WHEN pg_temp.u01(n, 52) < 0.05 THEN 1 ELSE 0 END,
                                  'failed', 0) AS counts,
               NULL AS error
          FROM generate_series(1, 5760) n
        UNION ALL
        SELECT 'reconciliation', CASE WHEN n % 2 = 0 THEN 'onceguard-7d9f8c6b5-x2k4q' ELSE 'onceguard-7d9f8c6b5-p8m2z' END,
               :'anchor'::timestamptz - n * interval '30 seconds' - interval '7 seconds',
               (20 + 400 * pg_temp.u01(n, 53)) * interval '1 millisecond',
               CASE WHEN n BETWEEN 610 AND 615 THEN 'FAILED' ELSE 'SUCCEEDED' END,
               CASE WHEN n BETWEEN 610 AND 615 THEN '{}'::jsonb
                    ELSE jsonb_build_object('pendingChecked', floor(5 * pg_temp.u01(n, 56))::int,
                             'pendingResolved', floor(2 * pg_temp.u01(n, 57))::int,
                             'refundsPendingResolved', CASE WHEN n < 40 THEN floor(2 * pg_temp.u01(n, 55))::int ELSE 0 END) END,
               CASE WHEN n BETWEEN 610 AND 615
                    THEN 'ProcessingException: java.net.ConnectException: Connection refused' END
          FROM generate_series(1, 2880) n
        UNION ALL
        SELECT 'retention-cleanup', 'onceguard-7d9f8c6b5-x2k4q',
               :'anchor'::timestamptz - n * interval '10 minutes' + interval '2 minutes',
               (300 + 2500 * pg_temp.u01(n, 58)) * interval '1 millisecond', 'SUCCEEDED',
               jsonb_build_object('idempotency_records', 200 + floor(500 * pg_temp.u01(n, 59))::int,
                   'idempotency_conflicts', floor(3 * pg_temp.u01(n, 60))::int,
                   'webhook_inbox', 40 + floor(150 * pg_temp.u01(n, 61))::int,
                   'outbox_events', 60 + floor(120 * pg_temp.u01(n, 62))::int, 'job_runs', 120), NULL
          FROM generate_series(1, 144) n
        UNION ALL
        SELECT 'outbox-relay', CASE WHEN extract(second FROM burst_at) < 30 THEN 'onceguard-7d9f8c6b5-x2k4q'
                                    ELSE 'onceguard-7d9f8c6b5-p8m2z' END,
               burst_at + interval '1 second', (15 + 40 * events) * interval '1 millisecond', 'SUCCEEDED',
               jsonb_build_object('claimed', events, 'done', done, 'retried', events - done - dead, 'dead', dead), NULL
          FROM (SELECT date_trunc('second', created_at) AS burst_at, count(*)::int AS events,
                       count(*) FILTER (WHERE status = 'DONE')::int AS done,
                       count(*) FILTER (WHERE status = 'DEAD')::int AS dead
                  FROM outbox_events
                 WHERE created_at > :'anchor'::timestamptz - interval '24 hours' AND attempts > 0
                 GROUP BY 1) bursts) r
 ORDER BY started_at;

-- Hourly webhook activity of the last 24 h, counted from the inbox rows above (the console's webhook summary).
INSERT INTO activity_hourly (hour, kind, count)
SELECT hour, kind, sum(n)
  FROM (SELECT date_trunc('hour', received_at) AS hour, 'webhooks.' || provider || '.' || lower(status) AS kind,
               count(*) AS n
          FROM webhook_inbox WHERE received_at > :'anchor'::timestamptz - interval '24 hours' GROUP BY 1, 2
        UNION ALL
        SELECT date_trunc('hour', last_delivered_at), 'webhooks.' || provider || '.duplicate', sum(delivery_count - 1)
          FROM webhook_inbox
         WHERE last_delivered_at > :'anchor'::timestamptz - interval '24 hours' AND delivery_count > 1 GROUP BY 1, 2
        UNION ALL
        SELECT date_trunc('hour', :'anchor'::timestamptz - n * interval '1 hour'), 'webhooks.stripe.rejected_signature', n % 3
          FROM generate_series(0, 23) n WHERE n % 3 > 0) a
 GROUP BY hour, kind;

-- The request log the engine writes: the first request of every record, each replay with its own request id, each
-- refused key reuse, and a 409 for one in-progress record in five hundred.
INSERT INTO idempotency_request_log (record_id, request_id, received_at, outcome, http_status)
SELECT record_id, request_id, received_at, outcome, http_status
  FROM (SELECT r.id AS record_id, r.request_id, r.created_at AS received_at, 'EXECUTED' AS outcome,
               coalesce(r.response_status, 201) AS http_status
          FROM idempotency_records r
        UNION ALL
        SELECT r.id, pg_temp.uuid(r.id * 10 + n, 'replay'),
               r.last_replayed_at - (r.replay_count - n) * interval '2 seconds', 'REPLAYED', r.response_status
          FROM idempotency_records r CROSS JOIN LATERAL generate_series(1, r.replay_count) n
         WHERE r.replay_count > 0
        UNION ALL
        SELECT c.record_id, c.request_id, c.created_at, 'CONFLICT', 422 FROM idempotency_conflicts c
        UNION ALL
        SELECT r.id, pg_temp.uuid(r.id, 'busy'), r.created_at + interval '300 milliseconds', 'IN_PROGRESS', 409
          FROM idempotency_records r WHERE pg_temp.u01(r.id, 81) < 0.002) l
 ORDER BY received_at;

-- Every delivery of every inbox event, the first answered as its status says, the others as duplicates.
INSERT INTO webhook_deliveries (inbox_id, delivered_at, outcome, http_status)
SELECT w.id,
       CASE WHEN n = 1 THEN w.received_at
            ELSE w.received_at + (w.last_delivered_at - w.received_at) * (n - 1) / greatest(w.delivery_count - 1, 1) END,
       CASE WHEN n > 1 THEN 'duplicate' WHEN w.status = 'FAILED' THEN 'failed' ELSE lower(w.status) END,
       CASE WHEN n = 1 AND w.status = 'FAILED' THEN 500 ELSE 200 END
  FROM webhook_inbox w CROSS JOIN LATERAL generate_series(1, w.delivery_count) n
 ORDER BY 2;

-- What admins did in the console over the month.
INSERT INTO console_audit (at, actor, action, target_type, target_id, outcome, detail)
SELECT at, CASE WHEN n % 3 = 0 THEN 'admin' ELSE 'ops-' || (n % 4) END, action, target_type, target_id, outcome, detail
  FROM (SELECT n, :'anchor'::timestamptz - (30 * 86400 * pg_temp.u01(n, 71)) * interval '1 second' AS at,
               a.action, a.target_type,
               CASE a.target_type WHEN 'job' THEN a.target ELSE (1 + floor(:records * pg_temp.u01(n, 72)))::bigint::text END AS target_id,
               CASE WHEN pg_temp.u01(n, 73) < 0.85 THEN 'done' WHEN pg_temp.u01(n, 73) < 0.95 THEN 'already-resolved'
                    ELSE 'refused' END AS outcome,
               CASE WHEN pg_temp.u01(n, 73) < 0.85 THEN NULL WHEN pg_temp.u01(n, 73) < 0.95 THEN 'someone else had dealt with it'
                    ELSE 'not allowed in its current state' END AS detail
          FROM generate_series(1, 3000) n
          JOIN (VALUES (0, 'release', 'idempotency-record', NULL), (1, 'send-to-reconciliation', 'idempotency-record', NULL),
                       (2, 'reprocess', 'webhook-event', NULL), (3, 'retry-now', 'outbox-event', NULL),
                       (4, 'run-now', 'job', 'retention-cleanup'), (5, 'run-now', 'job', 'lease-recovery'))
               a(k, action, target_type, target) ON a.k = n % 6) x
 ORDER BY at;

SELECT definition FROM seed_indexes \gexec

COMMIT;

-- Operations still in flight keep a live lease for a few minutes after seeding, so that a run against the fresh data
-- sees both kinds on the stuck page (the service's own lease is 30 s).
UPDATE idempotency_records
   SET lease_expires_at = clock_timestamp() + (60 + 540 * pg_temp.u01(id, 18)) * interval '1 second'
 WHERE status = 'PROCESSING' AND lease_expires_at > :'anchor'::timestamptz;

\timing off
\echo console-seed: vacuum and analyze
VACUUM ANALYZE idempotency_records, idempotency_conflicts, orders, order_items, payments, state_transitions,
               outbox_events, licenses, notifications, loyalty_ledger, webhook_inbox, job_runs, activity_hourly,
               console_audit, idempotency_request_log, webhook_deliveries;

SELECT "table", "rows"
  FROM (VALUES
    (1, 'idempotency_records', (SELECT count(*) FROM idempotency_records)),
    (2, '  created in the last 24 h', (SELECT count(*) FROM idempotency_records WHERE created_at > :'anchor'::timestamptz - interval '24 hours')),
    (3, '  FAILED (stored refusals)', (SELECT count(*) FROM idempotency_records WHERE status = 'FAILED')),
    (4, '  PROCESSING', (SELECT count(*) FROM idempotency_records WHERE status = 'PROCESSING')),
    (5, '  PROCESSING past their lease', (SELECT count(*) FROM idempotency_records WHERE status = 'PROCESSING' AND lease_expires_at < now())),
    (6, '  replayed at least once', (SELECT count(*) FROM idempotency_records WHERE replay_count > 0)),
    (7, 'idempotency_conflicts', (SELECT count(*) FROM idempotency_conflicts)),
    (8, 'orders', (SELECT count(*) FROM orders)),
    (9, 'order_items', (SELECT count(*) FROM order_items)),
    (10, 'payments', (SELECT count(*) FROM payments)),
    (11, 'state_transitions', (SELECT count(*) FROM state_transitions)),
    (12, 'licenses + notifications + loyalty_ledger', (SELECT count(*) FROM licenses) + (SELECT count(*) FROM notifications) + (SELECT count(*) FROM loyalty_ledger)),
    (13, 'outbox_events', (SELECT count(*) FROM outbox_events)),
    (14, '  DONE', (SELECT count(*) FROM outbox_events WHERE status = 'DONE')),
    (15, '  PENDING, never tried', (SELECT count(*) FROM outbox_events WHERE status = 'PENDING' AND attempts = 0)),
    (16, '  RETRYING (PENDING, attempts > 0)', (SELECT count(*) FROM outbox_events WHERE status = 'PENDING' AND attempts > 0)),
    (17, '  DEAD', (SELECT count(*) FROM outbox_events WHERE status = 'DEAD')),
    (18, 'webhook_inbox', (SELECT count(*) FROM webhook_inbox)),
    (19, '  PROCESSED', (SELECT count(*) FROM webhook_inbox WHERE status = 'PROCESSED')),
    (20, '  IGNORED', (SELECT count(*) FROM webhook_inbox WHERE status = 'IGNORED')),
    (21, '  FAILED', (SELECT count(*) FROM webhook_inbox WHERE status = 'FAILED')),
    (22, '  delivered more than once', (SELECT count(*) FROM webhook_inbox WHERE delivery_count > 1)),
    (23, 'job_runs', (SELECT count(*) FROM job_runs)),
    (24, 'activity_hourly', (SELECT count(*) FROM activity_hourly)),
    (25, 'console_audit', (SELECT count(*) FROM console_audit)),
    (26, 'idempotency_request_log', (SELECT count(*) FROM idempotency_request_log)),
    (27, 'webhook_deliveries', (SELECT count(*) FROM webhook_deliveries))) v(position, "table", "rows")
 ORDER BY position;

SELECT 'console-seed: done in ' || to_char(clock_timestamp() - :'seed_started'::timestamptz, 'MI"m "SS"s"') AS seeded;
