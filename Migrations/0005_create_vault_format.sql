-- The format marker. readable_since is the oldest schema version (the newest migration a
-- library ships) that can still read and write this vault. A later migration that only adds (a
-- table, a column with a default, an index) leaves it as it is: an older library keeps reading a
-- newer vault, its session intact. A migration that changes what existing rows mean raises it to
-- its own version: an older library then sets the vault aside, untouched, instead of reading it.
-- 5: this migration's own version, the first that libraries read the marker from.
CREATE TABLE vault_format (
    singleton      INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
    readable_since INTEGER NOT NULL
);
INSERT INTO vault_format (singleton, readable_since) VALUES (1, 5);
