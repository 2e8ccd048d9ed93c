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
            // Space for the rotation, taken now: see `rotationReserveBytes`.
            try connection.run("INSERT OR REPLACE INTO refresh_reserve (singleton, reserve) VALUES (1, zeroblob(?))",
                               [.integer(Int64(Self.rotationReserveBytes))])
        }
        makeReserveReusable()
    }

    /// The space the mark holds for the rotation: more than a rotation writes (the session's row
    /// with two sealed tokens, the state row, an audit slot, the b-tree pages above them, the log
    /// index), measured at 44–52 KiB of free space failing the rotation's commit.
    static let rotationReserveBytes = 96 * 1024

    /// Moves the log's frames into the database and lets the next write start the log from its
    /// beginning, over blocks the file already has: the rotation that follows the mark then
    /// writes its frames into space that exists, and its pages reuse the reserve it frees.
    /// Best effort: a reader in another process may keep the log from restarting, and the
    /// rotation then appends as any write does (`ResumeManager` keeps a rotation it could not
    /// store in locked memory and retries the write).
    private func makeReserveReusable() {
        guard let connection else { return }
        do {
            try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        } catch {
            logger.debug("checkpoint after the refresh mark did not run", metadata: ["error": "\(error)"])
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
            try connection.run("DELETE FROM refresh_reserve")
        }
    }
}
