import CSQLCipher

extension Connection {
    /// Runs `body` in one read transaction, then makes sure SQLCipher did not hand it a page
    /// that failed authentication.
    ///
    /// Why: SQLCipher 3.4.1 returns a page whose HMAC fails as zeroes with SQLITE_OK and only
    /// marks the pager as failed. A zeroed b-tree page makes the statement fail (SQLITE_CORRUPT),
    /// but a zeroed *last overflow page* of a row is read as data: the tail of a large record
    /// silently becomes zero bytes. The mark lasts until the read transaction ends, and while it
    /// lasts every page fetch fails, so one cheap statement that fetches page 1 at the end of
    /// the transaction (the probe) tells whether anything read before it was forged or damaged.
    /// Cost on the healthy path: BEGIN, one cached `count(*)` of `sqlite_master`, COMMIT.
    ///
    /// - Throws: `PageAuthenticationFailure` when a page failed (it explains any error `body`
    ///   threw too); otherwise whatever `body` threw.
    func readCheckingPageAuthentication<T>(_ body: () throws -> T) throws -> T {
        try execute(TransactionKind.deferred.rawValue)
        let outcome = Result { try body() }
        let pagesAuthenticated: Bool
        do {
            _ = try scalarInt("SELECT count(*) FROM sqlite_master")
            pagesAuthenticated = true
        } catch {
            // Only the codec's mark makes this statement fail: page 1 is already cached and the
            // schema is loaded.
            pagesAuthenticated = !(error.code == .error || error.code == .corrupt || error.code == .notADatabase)
        }
        if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "COMMIT", nil, nil, nil) }
        if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
        guard pagesAuthenticated else { throw PageAuthenticationFailure() }
        return try outcome.get()
    }
}

/// Thrown by `Connection.readCheckingPageAuthentication` when SQLCipher flagged a page whose HMAC
/// did not verify during the read (it hands such a page over zeroed, without an error).
struct PageAuthenticationFailure: Error, Sendable, Equatable {}
