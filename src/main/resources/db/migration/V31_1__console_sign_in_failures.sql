-- Failed console sign-ins per user name ('user:<name>') and per client address ('address:<ip>'), shared by every
-- replica: a subject past its free failures is refused (429) until blocked_until, a delay that doubles with each
-- further failure up to a maximum, and its count starts again once it has been quiet for a while.
CREATE TABLE console_sign_in_failures (
    subject        text        PRIMARY KEY,
    failures       integer     NOT NULL,
    last_failed_at timestamptz NOT NULL,
    blocked_until  timestamptz
);
CREATE INDEX console_sign_in_failures_by_last ON console_sign_in_failures (last_failed_at);
