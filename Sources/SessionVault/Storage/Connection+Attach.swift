import CSQLCipher

extension Connection {
    /// Attaches an encrypted database under `name`, keyed with a raw key `x'<64 hex>'`. The
    /// key is bound without a copy (SQLITE_STATIC) from memory the caller keeps locked.
    func attach(path: String, as name: String, rawKey: UnsafeRawBufferPointer) throws(SQLiteError) {
        let sql = "ATTACH DATABASE ? AS \(name) KEY ?"
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql: sql)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        try check(sqlite3_bind_text(statement, 1, path, -1, transient), sql: sql)
        try check(sqlite3_bind_blob(statement, 2, rawKey.baseAddress, Int32(rawKey.count), nil), sql: sql)
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_DONE else { throw error(rc, sql: sql) }
    }
}
