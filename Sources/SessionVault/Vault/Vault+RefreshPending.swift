import Foundation

extension Vault {
    /// Durably marks a refresh of the current session at `expectedVersion` as pending, before
    /// its request goes out.
    ///
    /// Who may send the refresh token is decided by the refresh lock (`VaultFiles.refreshLock`),
    /// not here; this mark is what survives a crash: a launch that finds it knows the server may
    /// already have spent the token (`expired(.refreshInterrupted)`), so a refusal then is no
    /// surprise and not corruption.
    /// - Throws: `.staleSession` when the current session is no longer `sessionID` at
    ///   `expectedVersion`, checked under the write lock.
    func markRefreshPending(sessionID: String, expectedVersion: Int64) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        guard state.current?.session.id == sessionID, state.current?.session.tokenVersion == expectedVersion else { throw .staleSession }
        try write("refreshPending") { connection, now in
            try connection.run("""
                UPDATE sessions SET refresh_pending_since = coalesce(refresh_pending_since, ?)
                WHERE id = ? AND token_version = ? AND id = (SELECT current_session_id FROM vault_state WHERE singleton = 1)
                """, [.integer(now.unixMilliseconds), .text(sessionID), .integer(expectedVersion)])
            guard connection.changes == 1 else { throw VaultError.staleSession }
        }
    }

    /// Clears the pending mark after a refresh that stored nothing and spent nothing the server
    /// answered for (network failure, rate limit), so the next attempt starts clean.
    func clearRefreshPending(sessionID: String, expectedVersion: Int64) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        guard state.current?.session.id == sessionID, state.current?.session.refreshPendingSince != nil else { return }
        try write("refreshPendingCleared") { connection, _ in
            try connection.run("UPDATE sessions SET refresh_pending_since = NULL WHERE id = ? AND token_version = ?",
                               [.text(sessionID), .integer(expectedVersion)])
        }
    }
}
