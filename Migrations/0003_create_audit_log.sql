-- What happened to the vault, for support engineers. Never a token: at most its fingerprint.
-- A ring of fixed slots: entry n goes to slot n % capacity (vault_state.audit_seq counts the
-- entries), replacing the entry one capacity older in place. Capped without a DELETE, and a
-- new entry rewrites one page instead of three, on every durable write.
CREATE TABLE audit_log (
    slot         INTEGER PRIMARY KEY,
    seq          INTEGER NOT NULL,
    at           INTEGER NOT NULL,
    event        TEXT NOT NULL,
    session_id   TEXT,
    fingerprint  TEXT,
    reason       TEXT
);
