-- Cross-process single-flight refresh: the process that holds an unexpired lease is the only one
-- allowed to spend the session's refresh token; others wait for its result.
CREATE TABLE refresh_lease (
    session_id   TEXT PRIMARY KEY NOT NULL,
    owner        TEXT NOT NULL,
    expires_at   INTEGER NOT NULL
);
