-- The statements of one POST /api/orders (one line of p-184) as the service sends them, with no transaction around
-- them (the engine's from PostgresIdempotencyStore, the order's from checkout.CatalogRows and checkout.OrderRows):
--   1. claim and write: one statement. The service priced the order from the catalog entries it keeps in memory
--                (checkout.CatalogCache), so the statement first checks that they are still the catalog's (held: one
--                primary-key probe per product). Only if they are does its claim insert the idempotency record ... ON
--                CONFLICT DO NOTHING RETURNING id, already COMPLETED with its answer (201, the Location header, the
--                213-byte body): the row is written once, never updated. The order and its line are inserted by the
--                WITH queries that follow, only for a record the claim inserted. (p-184's stock is not limited: no
--                reservation.) It answers the new record's id (NULL when the scope had one) and whether the check held.
--   2. read:     only when the claim met the key's record (NULL id, the check held): SELECT the record by its scope.
-- Not here: the catalog read of a replica that does not keep p-184 yet (once per product after start), and the
-- request's request log row, which the service writes later in one batch per second.
--
-- Which keys: -D prefix=P -D keys=N, the key P || k for k random in [0, N), by user bench-user-(k % 16), k written
-- with at least four digits. New keys: a prefix no run used before and keys=4611686018427387903 (every order new).
-- Replays of a replica that has not read the record yet: the keys the entry script made beforehand, "<tag>-replay-NNNN"
-- by bench-user-(N % 16), so prefix=<tag>-replay- and keys=<their count>.
-- The request id is time-ordered like the service's generated ones (UUID version 7: milliseconds first).
-- Differences, all server-side and cheap: timestamps are now() instead of bound values, the order id is computed
-- in SQL (the service makes it before the claim, as here), and the claim also returns the request id for the order.
-- Note: pgbench substitutes ":name" everywhere (even inside string literals), so no ':' below is
-- followed by a letter or digit except real variables.
\set k random(0, :keys - 1)
\set uid :k % 16
\set r1 random(0, 4611686018427387903)
\set r2 random(0, 4611686018427387903)
\set id 0
WITH held AS (SELECT (EXISTS (SELECT 1 FROM products WHERE product_id = CAST('p-184' AS text)
                AND price = CAST(1500.00 AS numeric) AND currency = CAST('RUB' AS text)
                AND (stock IS NOT NULL) = CAST(false AS boolean))) AS holds),
claim AS (
INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status,
    recovery_point, request_id, request_body, created_at, expires_at,
    response_status, response_headers, response_body, resource_type, resource_id, completed_at)
SELECT 'bench-user-' || lpad(:uid::text, 3, '0'), 'create-order', :prefix::text || lpad(:k::text, greatest(length(:k::text), 4), '0'),
    '856d9653223abd5a683e75a24aa7088d1afed64493e5786a60578468cd890252', 'COMPLETED', 'finished',
    (lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || '7' || substr(md5(:r2::text), 1, 19))::uuid::text,
    CAST('{"items"' || CHR(58) || '[{"productId"' || CHR(58) || '"p-184","quantity"' || CHR(58) || '1}],"currency"' || CHR(58) || '"RUB"}' AS jsonb),
    now(), now() + interval '24 hours', 201,
    CAST('{"Location":"/api/orders/' || ('ord_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || substr(lpad(to_hex(:r1::bigint), 16, '0'), 1, 14)) || '","Content-Type":"application/json"}' AS jsonb),
    convert_to('{"orderId":"' || ('ord_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || substr(lpad(to_hex(:r1::bigint), 16, '0'), 1, 14))
           || '","status":"AWAITING_PAYMENT","items":[{"productId":"p-184","quantity":' || '1,"unitPrice":"1500.00"}],'
           || '"total":"1500.00","currency":"RUB","createdAt":"'
           || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.MS"Z"') || '"}', 'UTF8'),
    'order', ('ord_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || substr(lpad(to_hex(:r1::bigint), 16, '0'), 1, 14)), now()
  FROM held WHERE held.holds
ON CONFLICT (user_id, operation, idempotency_key) DO NOTHING
RETURNING id, request_id
),
order_row AS (
    INSERT INTO orders (order_id, user_id, status, total, currency, request_id, idempotency_record_id, created_at,
                        updated_at)
    SELECT ('ord_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || substr(lpad(to_hex(:r1::bigint), 16, '0'), 1, 14)),
           'bench-user-' || lpad(:uid::text, 3, '0'), 'AWAITING_PAYMENT', 1500.00, 'RUB', claim.request_id, claim.id,
           now(), now()
      FROM claim
    RETURNING order_id),
order_lines AS (
    INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price)
    SELECT o.order_id, l.line_no, l.product_id, l.quantity, l.unit_price
      FROM order_row o, (VALUES (0, 'p-184', 1, 1500.00)) AS l(line_no, product_id, quantity, unit_price))
SELECT coalesce((SELECT id FROM claim), 0) AS id, (SELECT holds FROM held) AS holds \aset
\if :id = 0
SELECT id, fingerprint, status, recovery_point, lease_expires_at, response_status, response_headers,
       response_body, resource_type, resource_id, expires_at
  FROM idempotency_records
 WHERE user_id = 'bench-user-' || lpad(:uid::text, 3, '0') AND operation = 'create-order' 
   AND idempotency_key = :prefix::text || lpad(:k::text, greatest(length(:k::text), 4), '0');
\endif
