-- Every text column compares byte for byte (collation "C"), whatever collation the database was created with.
-- Ids, keys, codes and statuses are compared on every write of the hot path (each B-tree insertion compares its
-- key a dozen times); a linguistic collation makes each comparison a locale-aware strcoll() instead of a memcmp().
-- Byte order also lets a plain B-tree answer "starts with" as a range (id >= prefix AND id < prefix || U+10FFFF),
-- so the console's search no longer needs text_pattern_ops copies of indexes that already exist.
-- Only the order in which the console sorts free text (product names) changes: byte order, not dictionary order.
-- On an existing database this rebuilds every index on a text column (the tables themselves are not rewritten).
DO $$
DECLARE
    target record;
BEGIN
    FOR target IN
        SELECT c.relname,
               string_agg(format('ALTER COLUMN %I TYPE %s COLLATE "C"', a.attname, format_type(a.atttypid, a.atttypmod)),
                          ', ' ORDER BY a.attnum) AS changes
          FROM pg_attribute a
          JOIN pg_class c ON c.oid = a.attrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname <> 'flyway_schema_history'
           AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid IN ('text'::regtype, 'varchar'::regtype)
           AND a.attcollation <> (SELECT oid FROM pg_collation WHERE collname = 'C' AND collnamespace = 'pg_catalog'::regnamespace)
         GROUP BY c.relname
    LOOP
        EXECUTE format('ALTER TABLE %I %s', target.relname, target.changes);
    END LOOP;
END
$$;

-- Copies that only served prefix search, on a column another index already leads with.
DROP INDEX idempotency_records_search_user;   -- idempotency_records_scope (user_id, operation, idempotency_key)
DROP INDEX orders_search_id;                  -- orders_pkey
DROP INDEX orders_search_user;                -- orders_by_user (user_id, order_id DESC)
DROP INDEX payments_search_id;                -- payments_pkey
DROP INDEX payments_search_provider_key;      -- payments_provider_idempotency_key_key (UNIQUE)

-- The other search columns keep one index each, now a plain one.
DROP INDEX idempotency_records_search_request;
CREATE INDEX idempotency_records_search_request ON idempotency_records (request_id);
DROP INDEX idempotency_records_search_key;
CREATE INDEX idempotency_records_search_key ON idempotency_records (idempotency_key);
DROP INDEX idempotency_conflicts_search_request;
CREATE INDEX idempotency_conflicts_search_request ON idempotency_conflicts (request_id);
DROP INDEX idempotency_request_log_by_request_id;
CREATE INDEX idempotency_request_log_by_request_id ON idempotency_request_log (request_id);
DROP INDEX payments_search_provider_payment;
CREATE INDEX payments_search_provider_payment ON payments (provider_payment_id) WHERE provider_payment_id IS NOT NULL;
DROP INDEX webhook_inbox_search_event;
CREATE INDEX webhook_inbox_search_event ON webhook_inbox (event_id);

-- Every claim is PROCESSING, so an index of all records not COMPLETED took an entry from every new operation, to
-- serve the console's status filter. PROCESSING records are few and found through idempotency_records_processing;
-- only the refused (FAILED) ones, which may pile up, keep an index in time order.
DROP INDEX idempotency_records_not_completed_by_time;
CREATE INDEX idempotency_records_failed_by_time ON idempotency_records (created_at DESC, id DESC) WHERE status = 'FAILED';
