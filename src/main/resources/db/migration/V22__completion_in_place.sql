-- A local operation's record is written twice in one transaction: the claim inserts it, the completion stores the
-- response. PostgreSQL can update a row in place (a heap-only tuple, no new entry in any index) only when the update
-- changes no column that an index names, in its key or in its predicate. The completion changes the status, the
-- lease, the resource, the response and the expiry, so each of the four indexes below that named one of them made
-- every completion write a new entry into all eleven indexes of the table. After this migration none does:
--
--   the lease     A local operation's claim sets no lease: its PROCESSING state never commits (the completion or the
--                 rollback ends it in the same transaction), so nothing can take it over. Only the records of
--                 operations that call out carry a lease, from their claim until they finish, and the index of leases
--                 holds exactly those: lease recovery, the stuck list and the PROCESSING gauge read it.
--   the expiry    A local operation's completion keeps the expiry its claim set (the two are moments apart), so the
--                 index of expiries has no status predicate; the retention cleanup passes over the PROCESSING
--                 records it meets, which are few.
--   the resource  An order names the record that created it, as a payment already does; the console goes from the
--                 order or the payment to its record by primary key.
--   the failure   FAILED records are read through idempotency_records_by_time, newest first, with the status as a
--                 filter.
DROP INDEX idempotency_records_processing;
DROP INDEX idempotency_records_by_expiry;
DROP INDEX idempotency_records_failed_by_time;

UPDATE idempotency_records SET lease_expires_at = NULL WHERE status <> 'PROCESSING' AND lease_expires_at IS NOT NULL;
ALTER TABLE idempotency_records ADD CONSTRAINT idempotency_records_lease_only_while_processing
    CHECK (status = 'PROCESSING' OR lease_expires_at IS NULL);
CREATE INDEX idempotency_records_leased ON idempotency_records (lease_expires_at) WHERE lease_expires_at IS NOT NULL;
CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_at);

ALTER TABLE orders ADD COLUMN idempotency_record_id bigint;
UPDATE orders o SET idempotency_record_id = r.id
  FROM idempotency_records r
 WHERE r.resource_type = 'order' AND r.resource_id = o.order_id;
DROP INDEX idempotency_records_by_resource;
