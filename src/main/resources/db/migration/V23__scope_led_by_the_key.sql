-- The scope's unique index leads with the idempotency key instead of the user, and the index that only served the
-- console's search by key goes: every claim wrote one entry fewer, at a random place of a second index ordered by a
-- client's random keys. The unique index answers all three of its readers as before: the claim's ON CONFLICT
-- (which names the scope's columns, in any order), the lookup of one scope (all three columns equal) and the search by
-- key or key prefix (its leading column). The user's own indexes (idempotency_records_by_user, _same_cart) no longer
-- repeat the scope's leading column.
CREATE UNIQUE INDEX idempotency_records_scope_by_key ON idempotency_records (idempotency_key, user_id, operation);
ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_scope;
ALTER TABLE idempotency_records ADD CONSTRAINT idempotency_records_scope UNIQUE USING INDEX idempotency_records_scope_by_key;
DROP INDEX idempotency_records_search_key;
