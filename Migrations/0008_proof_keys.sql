-- Sender-constrained sessions (issue 29, DPoP, RFC 9449).
-- proof_key: the session's proof key as its provider stores it (a software key's private scalar,
-- a Secure Enclave key's opaque blob), sealed under the field key like the tokens; the associated
-- data binds it to this row and column, not to token_version: the key outlives every rotation.
-- It lives in the session's row so that whatever deletes the session (sign-out, a new sign-in,
-- a wipe) deletes the key in the same transaction.
-- proof_jkt: the key's RFC 7638 thumbprint, the value the server binds the tokens to (cnf.jkt);
-- kept in the clear for inspect. NULL in both for a bearer session.
-- readable_since rises to 8: an older library does not know proof_key, so its rekey would re-seal
-- the tokens and leave the key sealed under the old field key (a key the new library could never
-- open again), and it would refresh a bound session without a proof. It sets the vault aside,
-- untouched, instead.
ALTER TABLE sessions ADD COLUMN proof_key BLOB;
ALTER TABLE sessions ADD COLUMN proof_jkt TEXT;
UPDATE vault_format SET readable_since = 8 WHERE singleton = 1;
