-- Console form sign-ins as server-side sessions: the browser holds a random token, the table its SHA-256. Signing out
-- ends the row, and a session older than onceguard.console.session.absolute-lifetime is over whatever its cookies say.
CREATE TABLE console_sessions (
    token_sha256 bytea PRIMARY KEY,
    user_name    text        NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    ended_at     timestamptz
);
CREATE INDEX console_sessions_by_start ON console_sessions (started_at);
