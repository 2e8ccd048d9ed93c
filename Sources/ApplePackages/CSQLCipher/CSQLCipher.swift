// The engine seam on Apple platforms (chosen in Package.swift): the library imports `CSQLCipher`
// on every platform; here it is SQLCipher's official package. Its header declares `sqlite3_key`
// only under SQLITE_HAS_CODEC, which every importing target defines (`sqlCipherDefines`).
@_exported import SQLCipher
