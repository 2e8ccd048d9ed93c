-- What the refresh timing needs across launches and processes (issue 24).
-- access_issued_at: when the cached access token arrived (local receipt clock, Unix ms), so the
-- lifetime the server granted is known and the refresh-ahead margin can shrink with it. NULL for
-- a row written before this migration: the margin is then the policy's, as it was.
-- refresh_not_before: a server's 429 retry_after, kept so that every process of the app honours
-- it (Unix ms on the local clock; 0: none). Neither is sealed: both only delay or time a
-- refresh, never hand out or keep a token.
-- Only additions with defaults: readable_since stays, an older library keeps reading the vault.
ALTER TABLE sessions ADD COLUMN access_issued_at INTEGER;
ALTER TABLE vault_state ADD COLUMN refresh_not_before INTEGER NOT NULL DEFAULT 0;
-- refresh_reserve: space held for the rotation a refresh will write. The "refresh pending" mark
-- writes one row of reserve_bytes in its transaction, before the refresh token is sent, and the
-- rotation deletes it in its own: the pages the rotation needs already exist when the server
-- answers, so a full disk fails the mark (nothing sent), not the rotation (a spent token lost).
CREATE TABLE refresh_reserve (
    singleton  INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
    reserve    BLOB NOT NULL
);
