extension Connection {
    /// The one keyed open: every connection on a vault's database (the open, its creation, the
    /// diagnosis, the rekey's check of its copy) is opened, keyed and pinned here, so that all
    /// of them read the file the same way, with the same settings, in the same order.
    ///
    /// Nothing here reads the file: keying and the cipher PRAGMAs only configure the codec, so a
    /// failure here leaves no write-ahead log open and the connection may close normally. The
    /// first read is the caller's (the open's first read has its own evidence rule).
    ///
    /// - Parameter busyTimeoutMilliseconds: set before the first statement, for connections
    ///   that may meet another process's lock while keying or on their first read.
    static func keyed(
        _ path: String, keys: VaultKeys, create: Bool = false, readOnly: Bool = false,
        busyTimeoutMilliseconds: Int32? = nil
    ) throws(SQLiteError) -> Connection {
        let connection = try Connection(path: path, create: create, readOnly: readOnly)
        if let busyTimeoutMilliseconds { connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds) }
        let rawKey: SecretBytes
        do {
            rawKey = try keys.databaseRawKey
        } catch {
            // Locked memory for the hex key could not be had: out of (locked) memory, which is
            // what SQLite's own code for it says. Operational, never damage.
            throw SQLiteError(extendedCode: .noMemory, message: "keying failed: \(error)")
        }
        try rawKey.withUnsafeBytes { (raw) throws(SQLiteError) in try connection.key(raw) }
        try connection.pinCipherSettings(pageSize: VaultHeader.cipherPageSize, kdfIterations: VaultHeader.kdfIterations)
        return connection
    }
}
