import Foundation

extension Vault {
    /// Durably marks a refresh of the current session at `expectedVersion` as pending, before
    /// its request goes out, after taking the space its rotation will need.
    ///
    /// Who may send the refresh token is decided by the refresh lock (`VaultFiles.refreshLock`),
    /// not here; this mark is what survives a crash: a launch that finds it knows the server may
    /// already have spent the token (`expired(.refreshInterrupted)`), so a refusal then is no
    /// surprise and not corruption.
    /// - Throws: `.storageFull` when the space for the rotation cannot be had (nothing marked,
    ///   nothing to be sent); `.staleSession` when the current session is no longer `sessionID`
    ///   at `expectedVersion`, checked under the write lock.
    func markRefreshPending(sessionID: String, expectedVersion: Int64) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        guard state.current?.session.id == sessionID, state.current?.session.tokenVersion == expectedVersion else { throw .staleSession }
        try reserveRotationSpace()
        try write("refreshPending") { connection, now in
            guard try SessionRecord.markRefreshPending(of: sessionID, atVersion: expectedVersion, since: now.unixMilliseconds, in: connection) else {
                throw VaultError.staleSession
            }
        }
    }

    /// The space the reserve holds for a rotation: more than a rotation of tokens of the usual
    /// size writes (the session's row with two sealed tokens, the state row, an audit slot, the
    /// b-tree pages above them), which measured 44–52 KiB of free space failing the rotation's
    /// commit. A server may answer with larger tokens than any it issued before (nothing bounds
    /// a token response): such a rotation can still meet a full disk, and is kept in memory.
    static let rotationReserveBytes = 96 * 1024

    /// Makes the rotation's space certain before the token is sent. A reserve row of
    /// `rotationReserveBytes` is written (the log grows by as much), and the log is copied into
    /// the database (which grows by as much) so the next write starts the log again from its
    /// beginning: the mark and then the rotation write their frames over blocks the log file
    /// already has, and the rotation's pages reuse the reserve it frees. A full disk fails here,
    /// before anything is sent. A reader in another process can keep the log from starting over;
    /// the rotation then appends as any write does, and `ResumeManager` keeps a rotation it could
    /// not store in locked memory and writes it when it can.
    private func reserveRotationSpace() throws(VaultError) {
        try write("refreshReserve") { connection, _ in
            try SessionRecord.reserveRotationSpace(Int64(Self.rotationReserveBytes), in: connection)
        }
        let connection = try liveConnection()
        do {
            try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        } catch  where error.isOutOfSpace {
            throw .storageFull("no room to copy the log into the database before a refresh: \(error)")
        } catch {
            logger.debug("checkpoint before a refresh did not run", metadata: ["error": "\(error)"])
        }
    }

    /// Records that the server refused the refresh of `sessionID` at `expectedVersion` without a
    /// verdict on the grant, and clears the pending mark (the server spent nothing it answered
    /// for) unless `keepPending` (a mark an earlier holder left when it died). Returns the
    /// session as stored afterwards: its `refreshRefusedSince` is the first such refusal's time.
    /// Nil when the session moved on meanwhile (rotated or replaced).
    func recordRefreshRefused(sessionID: String, expectedVersion: Int64, keepPending: Bool) throws(VaultError) -> Session? {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        try reloadIfChangedElsewhere()
        guard state.current?.session.id == sessionID, state.current?.session.tokenVersion == expectedVersion else { return nil }
        let recorded = try write("refreshRefused") { connection, now in
            let recorded = try SessionRecord.recordRefreshRefused(
                of: sessionID, atVersion: expectedVersion, at: now.unixMilliseconds, keepPending: keepPending, in: connection)
            if recorded, !keepPending { try SessionRecord.releaseRotationSpace(in: connection) }
            return recorded
        }
        guard recorded, let current = state.current?.session, current.id == sessionID else { return nil }
        return current
    }

    /// Clears the pending mark after a refresh that stored nothing and spent nothing the server
    /// answered for (network failure, rate limit), so the next attempt starts clean.
    func clearRefreshPending(sessionID: String, expectedVersion: Int64) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        guard state.current?.session.id == sessionID, state.current?.session.refreshPendingSince != nil else { return }
        try write("refreshPendingCleared") { connection, _ in
            try SessionRecord.clearRefreshPending(of: sessionID, atVersion: expectedVersion, in: connection)
            try SessionRecord.releaseRotationSpace(in: connection)
        }
    }
}
