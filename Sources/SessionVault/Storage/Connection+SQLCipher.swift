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
        // 4.x-only names; SQLCipher 3.x ignores them (its defaults are already SHA1), and 4.x
        // needs them to read a file written with 3.x settings.
        try execute("""
            PRAGMA cipher_page_size = \(pageSize);
            PRAGMA kdf_iter = \(kdfIterations);
            PRAGMA cipher_use_hmac = ON;
            PRAGMA cipher_hmac_algorithm = HMAC_SHA1;
            PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1;
            """)
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
        try execute("""
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
