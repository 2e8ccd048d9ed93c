-- What happened to the vault, for support engineers. Never a token: at most its fingerprint.
-- Capped by the library (oldest rows deleted past the cap), so it cannot grow without bound.
CREATE TABLE audit_log (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    at           INTEGER NOT NULL,
    event        TEXT NOT NULL,
    session_id   TEXT,
    fingerprint  TEXT,
    reason       TEXT
);
