-- A refresh the server refused without a verdict on the grant (a 4xx naming no error the library
-- knows: Glewlwyd's empty 400, idpyoidc's "invalid_request"): when this session's refresh was
-- first refused so (Unix ms on the local clock; NULL: not refused). Every process and launch
-- answers `renewalRefused` from it, and a refusal that lasts past the policy's limit ends the
-- session. A rotation clears it; a new sign-in is a new row. Not sealed: it never hands out or
-- keeps a token, it only lets a refusal end a session sooner than the refresh token's expiry.
-- An older library that rotates leaves it as it was: a refusal after that counts from the first
-- one this library saw, which is still a refusal the server repeated.
ALTER TABLE sessions ADD COLUMN refresh_refused_since INTEGER;
-- refresh_deferred_for: the wait a server's 429 asked for (ms), beside refresh_not_before, so that
-- the recorded wait is never longer than the server asked whatever the clock did: a clock set back
-- after the 429 would otherwise hold every refresh until it caught up again. 0 for a record
-- written before this migration: such a record is trusted for at most a day, as before.
ALTER TABLE vault_state ADD COLUMN refresh_deferred_for INTEGER NOT NULL DEFAULT 0;
-- id_token: the ID token of the sign-in (or of the latest refresh that sent one), sealed under the
-- field key like the proof key (its associated data binds it to this row and column, not to a
-- token version), kept only for the end-session URL's id_token_hint (OIDC RP-Initiated Logout;
-- Glewlwyd acts on nothing else) and deleted with the row at sign-out. An ID token that does not
-- open (an older library's rekey left it under the old key) is no damage: the URL goes without it.
ALTER TABLE sessions ADD COLUMN id_token BLOB;
-- Only additions with defaults: readable_since stays, an older library keeps reading the vault.
