-- A bulk admin action is one console_audit entry; these are the rows it took, each with how it ended there
-- (acted, already-handled by a job, a retry or another replica, refused, failed).
CREATE TABLE console_audit_rows (
    audit_id  bigint NOT NULL REFERENCES console_audit (id) ON DELETE CASCADE,
    target_id text   NOT NULL,
    outcome   text   NOT NULL CHECK (outcome IN ('acted', 'already-handled', 'refused', 'failed')),
    detail    text   CHECK (char_length(detail) <= 500),
    PRIMARY KEY (audit_id, target_id)
);

-- A record's, event's or outbox row's page lists the admin actions that took it, single or bulk.
CREATE INDEX console_audit_rows_by_target ON console_audit_rows (target_id);
CREATE INDEX console_audit_by_target ON console_audit (target_type, target_id);
