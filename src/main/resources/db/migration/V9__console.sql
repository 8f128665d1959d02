-- Request and delivery outcomes per hour, for the console's 24-hour charts. Replays, 409s and signature failures
-- leave no row anywhere else; each replica adds its counts every few seconds (see HourlyActivity).
CREATE TABLE activity_hourly (
    hour  timestamptz NOT NULL,
    kind  text        NOT NULL,
    count bigint      NOT NULL CHECK (count >= 0),
    PRIMARY KEY (hour, kind)
);

-- Every admin action taken in the console: who, what, on which object, and how it ended.
CREATE TABLE console_audit (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL,
    actor       text        NOT NULL,
    action      text        NOT NULL,
    target_type text        NOT NULL,
    target_id   text        NOT NULL,
    outcome     text        NOT NULL,
    detail      text
);
CREATE INDEX console_audit_by_time ON console_audit (at DESC, id DESC);
