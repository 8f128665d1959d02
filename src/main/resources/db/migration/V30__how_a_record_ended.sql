-- Every record keeps, in its own row, what finished it and what its first request's client was answered, written by
-- the statement that finishes it (or, for an interim 202, pauses it): a crash loses the batched request log's last
-- second, never this.
--
-- ending_recorded: false for the rows that exist now, whose ending nobody recorded (the console reads them as
--   "unknown", never as a clean success); true for every row inserted from now on (the default changes below).
-- finished_by: request (the record's own first request or a retry), lease_recovery, reconciliation, webhook or admin.
-- finished_by_ref: the request id, job run id, webhook event id or console audit entry id.
-- first_answer_status / first_answered_at: the HTTP status the first request's client was given and when; NULL on a
--   recorded row means no answer was recorded (the process died before answering).
ALTER TABLE idempotency_records
    ADD COLUMN ending_recorded boolean NOT NULL DEFAULT false,
    ADD COLUMN finished_by text,
    ADD COLUMN finished_by_ref text,
    ADD COLUMN first_answer_status smallint,
    ADD COLUMN first_answered_at timestamptz;

ALTER TABLE idempotency_records ALTER COLUMN ending_recorded SET DEFAULT true;

ALTER TABLE idempotency_records ADD CONSTRAINT idempotency_records_finished_by_known
    CHECK (finished_by IN ('request', 'lease_recovery', 'reconciliation', 'webhook', 'admin')) NOT VALID;
