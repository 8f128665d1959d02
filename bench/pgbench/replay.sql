-- (c') Replay ceiling: the statements of one replayed POST /api/orders (key already COMPLETED), in one
-- transaction, as Hibernate sends them:
--   1. claim:  INSERT idempotency_records ... ON CONFLICT DO NOTHING RETURNING id  (returns no row)
--   2. read:   SELECT the record by (user_id, operation, idempotency_key), all columns, FETCH FIRST 1
--   3. count:  UPDATE idempotency_records SET replay_count = replay_count + 1, last_replayed_at = ...
-- Keys are the ones the entry script created for (b): "<tag>-replay-NNNN" by bench-user-(N % 16);
-- pass -D tag=<run tag> -D keys=<count>. Same ':' caveat as create-order.sql.
\set k random(0, :keys - 1)
\set uid :k % 16
BEGIN;
INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status,
    recovery_point, lease_expires_at, request_id, created_at, expires_at)
VALUES ('bench-user-' || lpad(:uid::text, 3, '0'), 'create-order', :tag::text || '-replay-' || lpad(:k::text, 4, '0'),
    '856d9653223abd5a683e75a24aa7088d1afed64493e5786a60578468cd890252', 'PROCESSING', 'started',
    now() + interval '30 seconds', gen_random_uuid()::text, now(), now() + interval '24 hours')
ON CONFLICT (user_id, operation, idempotency_key) DO NOTHING
RETURNING id;
SELECT ir1_0.id, ir1_0.completed_at, ir1_0.created_at, ir1_0.expires_at, ir1_0.fingerprint, ir1_0.idempotency_key,
       ir1_0.last_replayed_at, ir1_0.lease_expires_at, ir1_0.operation, ir1_0.recovery_point, ir1_0.replay_count,
       ir1_0.request_id, ir1_0.resource_id, ir1_0.resource_type, ir1_0.response_body, ir1_0.response_headers,
       ir1_0.response_status, ir1_0.status, ir1_0.user_id
  FROM idempotency_records ir1_0
 WHERE ir1_0.user_id = 'bench-user-' || lpad(:uid::text, 3, '0') AND ir1_0.operation = 'create-order'
   AND ir1_0.idempotency_key = :tag::text || '-replay-' || lpad(:k::text, 4, '0')
 FETCH FIRST 1 ROWS ONLY \gset rec_
UPDATE idempotency_records ir1_0 SET replay_count = (ir1_0.replay_count + 1), last_replayed_at = now()
 WHERE ir1_0.id = :rec_id;
COMMIT;
