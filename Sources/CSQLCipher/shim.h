#ifndef SESSIONVAULT_CSQLCIPHER_SHIM_H
#define SESSIONVAULT_CSQLCIPHER_SHIM_H

// sqlite3_key / sqlite3_rekey are only declared when the codec is enabled.
#define SQLITE_HAS_CODEC 1
// The SQLCipher copy of the header, not /usr/include/sqlite3.h: on Debian that one is a newer
// plain SQLite and declares functions SQLCipher 3.4.1 (SQLite 3.15.2) does not export.
#include <sqlcipher/sqlite3.h>

#endif
