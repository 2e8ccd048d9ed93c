import Foundation

extension Vault {
    /// Takes the refresh lease for the current session at `expectedVersion`, in one durable
    /// transaction that also marks the refresh pending (before any network call).
    ///
    /// Rotating refresh tokens die on second use, so across processes sharing the file (an app
    /// and its extension) only the lease holder may spend the token; the others wait for its
    /// result to appear in the file. An expired lease (its holder died) can be taken over.
    /// - Throws: `.staleSession` when the current session is no longer `sessionID` at
    ///   `expectedVersion`, checked inside the write transaction (another process may have
    ///   rotated while this one waited for the lock).
    public func acquireRefreshLease(owner: String, sessionID: String, expectedVersion: Int64, duration: TimeInterval) throws(VaultError) -> RefreshLease {
        try refreshIfChangedElsewhere()
        let id = sessionID
        guard state.current?.session.id == id, state.current?.session.tokenVersion == expectedVersion else { throw .staleSession }
        return try write("refreshLease") { connection, now in
            // The check that counts: under the write lock nobody can rotate meanwhile.
            try connection.run("""
                UPDATE sessions SET refresh_pending_since = coalesce(refresh_pending_since, ?)
                WHERE id = ? AND token_version = ? AND id = (SELECT current_session_id FROM vault_state WHERE singleton = 1)
                """, [.integer(now.unixMilliseconds), .text(id), .integer(expectedVersion)])
            guard connection.changes == 1 else { throw VaultError.staleSession }
            let holder = try connection.cached("SELECT owner, expires_at FROM refresh_lease WHERE session_id = ?")
            try holder.bind([.text(id)])
            if try holder.step(), let other = holder.text(0), other != owner, holder.int64(1) > now.unixMilliseconds {
                let until = Date(unixMilliseconds: holder.int64(1))
                holder.reset()
                return .heldElsewhere(until: until)
            }
            holder.reset()
            let until = now.addingTimeInterval(duration)
            try connection.run("DELETE FROM refresh_lease WHERE session_id = ?", [.text(id)])
            try connection.run("INSERT INTO refresh_lease (session_id, owner, expires_at) VALUES (?, ?, ?)",
                               [.text(id), .text(owner), .integer(until.unixMilliseconds)])
            return .acquired(until: until)
        }
    }

    /// Extends a lease this owner holds (a heartbeat while its request is out). Not a durable
    /// write: losing an extension to a crash only lets another process take over sooner, which is
    /// what a dead holder should allow anyway.
    public func renewRefreshLease(owner: String, sessionID: String, duration: TimeInterval) throws(VaultError) {
        let connection = try liveConnection()
        do {
            try connection.run("UPDATE refresh_lease SET expires_at = ? WHERE session_id = ? AND owner = ?",
                               [.integer(clock().addingTimeInterval(duration).unixMilliseconds), .text(sessionID), .text(owner)])
        } catch {
            throw mapWriteError(error)
        }
    }

    /// Gives the lease back after a refresh that stored nothing (network failure, rate limit):
    /// tokens kept, pending mark cleared, so the next attempt starts clean.
    public func releaseRefreshLease(owner: String) throws(VaultError) {
        guard let id = state.current?.session.id else { return }
        try write("refreshLeaseReleased") { connection, _ in
            try connection.run("DELETE FROM refresh_lease WHERE session_id = ? AND owner = ?", [.text(id), .text(owner)])
            if connection.changes > 0 {
                try connection.run("UPDATE sessions SET refresh_pending_since = NULL WHERE id = ?", [.text(id)])
            }
        }
    }
}
