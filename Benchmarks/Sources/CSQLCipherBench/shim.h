#ifndef SESSIONVAULT_BENCH_CSQLCIPHER_SHIM_H
#define SESSIONVAULT_BENCH_CSQLCIPHER_SHIM_H

// The baselines drive SQLCipher directly: sqlite3_key is only declared with the codec enabled,
// and the header must be SQLCipher's own copy (SQLite 3.15.2), not Debian's newer sqlite3.h.
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

#endif
