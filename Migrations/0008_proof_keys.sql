-- Sender-constrained sessions (issue 29, DPoP, RFC 9449).
-- proof_key: the session's proof key as its provider stores it (a software key's private scalar,
-- a Secure Enclave key's opaque blob), sealed under the field key like the tokens; the associated
-- data binds it to this row and column, not to token_version: the key outlives every rotation.
-- It lives in the session's row so that whatever deletes the session (sign-out, a new sign-in,
-- a wipe) deletes the key in the same transaction.
-- proof_jkt: the key's RFC 7638 thumbprint, the value the server binds the tokens to (cnf.jkt);
-- kept in the clear for inspect. NULL in both for a bearer session.
-- Only additions with defaults: an older library keeps reading the vault (and a DPoP session it
-- refreshes without a proof is refused by the server, which ends that session as rejected).
ALTER TABLE sessions ADD COLUMN proof_key BLOB;
ALTER TABLE sessions ADD COLUMN proof_jkt TEXT;
