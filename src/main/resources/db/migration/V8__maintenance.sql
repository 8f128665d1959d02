-- One row per run of a scheduled job, on whichever replica ran it; kept for 7 days.
CREATE TABLE job_runs (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job         text        NOT NULL,
    replica     text        NOT NULL,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    outcome     text        NOT NULL CHECK (outcome IN ('SUCCEEDED', 'FAILED')),
    counts      jsonb       NOT NULL DEFAULT '{}',
    error       text
);
CREATE INDEX job_runs_by_job ON job_runs (job, started_at DESC);
CREATE INDEX job_runs_by_time ON job_runs (started_at);


-- Retention walks finished inbox events by the time they were processed.
CREATE INDEX webhook_inbox_finished ON webhook_inbox (processed_at) WHERE status IN ('PROCESSED', 'IGNORED');
