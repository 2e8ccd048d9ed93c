-- The single row that says which session is current and how far the vault has got.
-- generation grows with every write transaction; the plaintext header beside the database keeps
-- the last value it saw, so an older copy of this file put back is noticed (rollback).
-- last_wall_clock is the latest time the vault has seen, to notice a clock moved backwards.
-- empty_reason says why there is no current session (neverSignedIn, signedOut, ...).
-- biometric_preference is the device owner's choice; it outlives a sign-out unless the policy
-- says otherwise, and a new session inherits it.
-- audit_seq numbers the audit log's entries (see 0003).
CREATE TABLE vault_state (
    singleton            INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
    current_session_id   TEXT REFERENCES sessions(id),
    generation           INTEGER NOT NULL,
    last_wall_clock      INTEGER NOT NULL,
    empty_reason         TEXT NOT NULL,
    server_clock_offset  INTEGER NOT NULL DEFAULT 0,
    biometric_preference INTEGER NOT NULL DEFAULT 0,
    audit_seq            INTEGER NOT NULL DEFAULT 0
);
INSERT INTO vault_state (singleton, current_session_id, generation, last_wall_clock, empty_reason)
VALUES (1, NULL, 1, 0, 'neverSignedIn');
