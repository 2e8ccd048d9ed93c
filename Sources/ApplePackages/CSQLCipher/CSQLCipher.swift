// The engine seam on Apple platforms (Package.swift, issue 28): the library imports `CSQLCipher`
// on every platform; here it is SQLCipher's official package. Its header declares `sqlite3_key`
// only under SQLITE_HAS_CODEC, which every importing target defines (`sqlCipherDefines`).
@_exported import SQLCipher
