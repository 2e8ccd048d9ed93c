-- The state seal (see StateSeal.swift). state_mac is a keyed tag over the generation and the
-- current session's identity, token version, sealed tokens and flags, rewritten in the same
-- transaction as every change to them: a page of the sessions table put back from an older copy
-- of the file no longer matches the generation the state row carries. vault_id tells this vault
-- from a later one made at the same path, for the generation kept beside the key.
-- Both are filled by the library when this migration is applied (a hook runs in its
-- transaction), so a sealed schema never holds an unsealed state.
-- readable_since rises to 6: a library without the seal would write changes without updating
-- it, and this one would then read its own vault as tampered.
ALTER TABLE vault_state ADD COLUMN state_mac BLOB;
ALTER TABLE vault_state ADD COLUMN vault_id BLOB;
UPDATE vault_format SET readable_since = 6 WHERE singleton = 1;
