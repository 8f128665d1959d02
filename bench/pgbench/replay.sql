-- (c') Replay ceiling: the statements of one replay whose finished record this replica has not read yet, as the engine
-- sends them, each on its own with no transaction around them (a replay of a record it has read runs no SQL at all):
--   1. plan:   SELECT the cart's product from the catalog (the order is planned before its claim)
--   2. claim and write: create-order.sql's statement for the replayed key. The claim meets the key's record, so it
--              returns no row and the WITH queries that read it write nothing
--   3. read:   SELECT the record by its scope (user_id, operation, idempotency_key)
-- Its replay count and request log row are written later, in the batch of the next second.
-- Keys are the ones the entry script created for (b): "<tag>-replay-NNNN" by bench-user-(N % 16);
-- pass -D tag=<run tag> -D keys=<count>. Same ':' caveat and differences as create-order.sql.
\set k random(0, :keys - 1)
\set uid :k % 16
\set r1 random(0, 4611686018427387903)
\set r2 random(0, 4611686018427387903)
SELECT product_id, price, currency, stock IS NOT NULL FROM products WHERE product_id IN ('p-184');
WITH claim AS (
INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status,
    recovery_point, lease_expires_at, request_id, request_body, created_at, expires_at,
    response_status, response_headers, response_body, resource_type, resource_id, completed_at)
VALUES ('bench-user-' || lpad(:uid::text, 3, '0'), 'create-order', :tag::text || '-replay-' || lpad(:k::text, 4, '0'),
    '856d9653223abd5a683e75a24aa7088d1afed64493e5786a60578468cd890252', 'COMPLETED', 'finished',
    NULL, (lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || '7' || substr(md5(:r2::text), 1, 19))::uuid::text,
    CAST('{"items"' || CHR(58) || '[{"productId"' || CHR(58) || '"p-184","quantity"' || CHR(58) || '1}],"currency"' || CHR(58) || '"RUB"}' AS jsonb),
    now(), now() + interval '24 hours', 201,
    CAST('{"Location":"/api/orders/' || ('ord_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || substr(lpad(to_hex(:r1::bigint), 16, '0'), 1, 14)) || '","Content-Type":"application/json"}' AS jsonb),
    convert_to('{"orderId":"' || ('ord_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || substr(lpad(to_hex(:r1::bigint), 16, '0'), 1, 14))
           || '","status":"AWAITING_PAYMENT","items":[{"productId":"p-184","quantity":' || '1,"unitPrice":"1500.00"}],'
           || '"total":"1500.00","currency":"RUB","createdAt":"'
           || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.MS"Z"') || '"}', 'UTF8'),
    'order', ('ord_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || substr(lpad(to_hex(:r1::bigint), 16, '0'), 1, 14)), now())
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
SELECT id FROM claim;
SELECT id, fingerprint, status, recovery_point, lease_expires_at, response_status, response_headers,
       response_body, resource_type, resource_id, expires_at
  FROM idempotency_records
 WHERE user_id = 'bench-user-' || lpad(:uid::text, 3, '0') AND operation = 'create-order'
   AND idempotency_key = :tag::text || '-replay-' || lpad(:k::text, 4, '0');
