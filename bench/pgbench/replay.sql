-- (c') Replay ceiling: the statements of one replay whose finished record this replica has not read yet, in one
-- transaction, as the engine sends them (a replay of a record it has read runs no SQL at all):
--   1. plan:   SELECT the cart's product from the catalog (the order is planned before its claim)
--   2. claim:  INSERT idempotency_records ... ON CONFLICT DO NOTHING RETURNING id  (returns no row; the service's
--              claim also carries the planned answer, which is never written)
--   3. read:   SELECT the record by its scope (user_id, operation, idempotency_key)
-- Its replay count and request log row are written later, in the batch of the next second.
-- Keys are the ones the entry script created for (b): "<tag>-replay-NNNN" by bench-user-(N % 16);
-- pass -D tag=<run tag> -D keys=<count>. Same ':' caveat as create-order.sql.
\set k random(0, :keys - 1)
\set uid :k % 16
BEGIN;
SELECT product_id, price, currency, stock IS NOT NULL FROM products WHERE product_id IN ('p-184');
INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status,
    recovery_point, lease_expires_at, request_id, request_body, created_at, expires_at)
VALUES ('bench-user-' || lpad(:uid::text, 3, '0'), 'create-order', :tag::text || '-replay-' || lpad(:k::text, 4, '0'),
    '856d9653223abd5a683e75a24aa7088d1afed64493e5786a60578468cd890252', 'PROCESSING', 'started',
    now() + interval '30 seconds', gen_random_uuid()::text, NULL, now(), now() + interval '24 hours')
ON CONFLICT (user_id, operation, idempotency_key) DO NOTHING
RETURNING id;
SELECT id, fingerprint, status, recovery_point, lease_expires_at, response_status, response_headers,
       response_body, resource_type, resource_id, expires_at
  FROM idempotency_records
 WHERE user_id = 'bench-user-' || lpad(:uid::text, 3, '0') AND operation = 'create-order'
   AND idempotency_key = :tag::text || '-replay-' || lpad(:k::text, 4, '0');
COMMIT;
