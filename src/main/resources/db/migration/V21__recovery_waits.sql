-- A paused operation may ask lease recovery to leave it alone for a while, e.g. a payment waiting for the customer's
-- 3-D Secure challenge, which its webhook settles: lease recovery takes a record only once its lease has expired and
-- this time has passed (NULL: at once). A client's retry and the console's actions may still take it over at once.
ALTER TABLE idempotency_records ADD COLUMN recover_after timestamptz;
