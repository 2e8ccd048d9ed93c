import CSQLCipher

extension Connection {
    /// SQLCipher's version, or nil when the linked library is a plain SQLite (the PRAGMA is then
    /// unknown and answers nothing). Checked on every open: fail closed rather than write
    /// tokens into a plaintext file because another libsqlite3 won the symbol race.
    func cipherVersion() throws(SQLiteError) -> String? {
        guard let version = try scalarText("PRAGMA cipher_version"), !version.isEmpty else { return nil }
        return version
    }

    /// Pins the cipher settings on a freshly keyed connection, before the first page is read,
    /// so a file written here opens the same way on SQLCipher 3.x and 4.x builds.
    func pinCipherSettings(pageSize: UInt32, kdfIterations: UInt32) throws(SQLiteError) {
        try silenceEngineLog()
        try execute(Self.cipherSettings(schema: nil, pageSize: pageSize, kdfIterations: kdfIterations))
    }

    /// Every setting a vault file's bytes depend on, as PRAGMAs for `schema` (nil: the main
    /// database; the rekey's attached copy names its own). One list for both, so a setting added
    /// here reaches every connection and every copy.
    ///
    /// Why each is set rather than left to the engine's default: defaults differ between
    /// engines (4.0 changed every one of them; the 5.0 beta changes them again) and can be
    /// changed process-wide by any other code in the app (`PRAGMA cipher_default_…`), and a
    /// file written under other settings does not open under ours.
    /// - `cipher_compatibility = 3` first: on 4.x it sets the 3.x format (the lines below then
    ///   set every part of it again, and the page size to ours); on a later engine it is the one
    ///   name for "the format of 3.x files", whatever new parts that format has there.
    /// - page size, KDF iterations, HMAC on, HMAC-SHA1, PBKDF2-HMAC-SHA1: the key is raw
    ///   (`x'…'`), so the KDF count is not used for the key, but the HMAC key is derived from it
    ///   with the KDF algorithm.
    /// - `cipher_plaintext_header_size = 0`: the whole first page encrypted, the salt stored in
    ///   the file. An app that sets `cipher_default_plaintext_header_size` for its own database
    ///   (the iOS app-group advice) would otherwise make vault files with a plaintext header and
    ///   no salt, which no other process opens.
    /// SQLCipher 3.x ignores the names it does not know (its defaults are these values).
    /// Not set: `fast_kdf_iter`, `cipher_hmac_pgno` (deprecated in 4.x, per connection, with no
    /// process-wide default to change them) and `cipher_hmac_salt_mask` (process-wide: setting
    /// it would change every other SQLCipher database of the app).
    static func cipherSettings(schema: String?, pageSize: UInt32, kdfIterations: UInt32) -> String {
        let prefix = schema.map { "\($0)." } ?? ""
        return """
            PRAGMA \(prefix)cipher_compatibility = 3;
            PRAGMA \(prefix)cipher_page_size = \(pageSize);
            PRAGMA \(prefix)kdf_iter = \(kdfIterations);
            PRAGMA \(prefix)cipher_use_hmac = ON;
            PRAGMA \(prefix)cipher_hmac_algorithm = HMAC_SHA1;
            PRAGMA \(prefix)cipher_kdf_algorithm = PBKDF2_HMAC_SHA1;
            PRAGMA \(prefix)cipher_plaintext_header_size = 0;
            """
    }

    /// Turns SQLCipher's own log off. SQLCipher 4.6+ logs at WARN to stderr on Linux (an HMAC
    /// failure on page 1 prints three lines): a library must not write to the caller's stdio,
    /// and every failure it logs already reaches the caller as a typed error. The level is
    /// process-wide, and 4.x applies its WARN default when the first connection is keyed, so
    /// this runs after keying, on every keyed connection. SQLCipher 3.x has no such PRAGMA and
    /// ignores it (an unknown PRAGMA is a no-op).
    func silenceEngineLog() throws(SQLiteError) {
        try execute("PRAGMA cipher_log_level = NONE")
    }

    /// The connection settings every vault connection runs with; each line says why.
    func applyVaultPragmas(busyTimeoutMilliseconds: Int32) throws(SQLiteError) {
        // Another process (an app extension) may hold the write lock for a moment.
        setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        try execute(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = FULL;
            PRAGMA temp_store = MEMORY;
            PRAGMA secure_delete = ON;
            PRAGMA journal_size_limit = 1048576;
            """)
        // WAL: one fsync per commit and readers never block the writer.
        // synchronous = FULL: a commit that carries rotated tokens survives power loss; only the
        //   coalesced last-active update runs at NORMAL.
        // temp_store = MEMORY: sorts and temporary tables never reach disk unencrypted.
        // secure_delete = ON: freed pages are zeroed, so old sealed tokens do not linger.
        // journal_size_limit: the WAL file is truncated back after checkpoints instead of
        //   keeping its largest size forever.
    }
}

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

/// The database engine this process links, asked without opening any vault (for a
/// chain-of-custody record, which must name the engine even when no key is given).
package struct EngineVersions: Sendable, Equatable {
    /// `PRAGMA cipher_version`, e.g. `3.4.1`; empty if the linked library is not SQLCipher.
    public let cipherVersion: String
    /// The SQLite library under SQLCipher, e.g. `3.15.2`.
    public let sqliteVersion: String

    /// Asks an in-memory connection: it touches no file.
    public static func current() -> EngineVersions {
        var cipher = ""
        if let connection = try? Connection(path: ":memory:", create: true), let version = try? connection.cipherVersion() {
            cipher = version
        }
        return EngineVersions(cipherVersion: cipher, sqliteVersion: Connection.sqliteVersion)
    }
}
