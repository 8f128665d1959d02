-- The engine's hot path writes every record twice (the claim, then its completion, which changes indexed columns):
-- every index on idempotency_records costs on each new operation, and every index that leads with user_id is one a
-- plan of the scope lookup could pick instead of the scope itself.
--
-- A user's unfinished or refused records (the console's user page with a status filter) are read through
-- idempotency_records_by_user (user_id, created_at DESC) with the status as a filter: one user's records are few
-- enough, and this partial index duplicated the scope's leading column.
DROP INDEX idempotency_records_not_completed_by_user;

-- A claim has no resource yet: without this predicate every claim wrote an entry of two NULLs, read by nothing.
DROP INDEX idempotency_records_by_resource;
CREATE INDEX idempotency_records_by_resource ON idempotency_records (resource_type, resource_id)
    WHERE resource_id IS NOT NULL;

-- Kept although they lead with user_id, because a console query needs each:
--   idempotency_records_by_user   the user's records newest first (Index Scan using idempotency_records_by_user,
--                                 Limit 51, on 1M records);
--   idempotency_records_same_cart the nearest record of the same cart on each side in time (Index Scan using
--                                 idempotency_records_same_cart, Limit 3).
-- The engine's scope lookup is planned with its parameters on each execution (never a generic plan cached while
-- the table was empty), where the fully matched unique scope is always the cheapest; IdempotencyPlansTest holds it.
