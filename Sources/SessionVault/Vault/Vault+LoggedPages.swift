import Foundation

extension Vault {
    /// How often a sign-out tries to empty the log, and the pause between tries (the write lock
    /// is free during it): 5 tries within about 80 ms.
    static let checkpointAttempts = 5
    static let checkpointPauseMicroseconds: UInt32 = 20_000

    /// Checkpoints the write-ahead log into the database and truncates it to zero bytes, durably.
    ///
    /// Why: secure_delete zeroes a deleted row in the database's pages, but the log keeps every
    /// earlier version of a page it holds, and the page key and field key survive a sign-out: a
    /// copy of the database, its log and the key would give the signed-out tokens back. After
    /// the checkpoint the database holds only the zeroed pages and the log holds nothing.
    /// A reader in another process that still uses an older snapshot keeps the checkpoint from
    /// finishing (busy): then the frames stay until the next sign-out or replacing store, and a
    /// warning is logged. The commit itself stands either way.
    ///
    /// The checkpoint never waits while it holds the write lock: a TRUNCATE checkpoint takes the
    /// write lock first and then waits for readers, so with the connection's busy timeout it
    /// could keep every other process from writing for up to that timeout, and their own waits
    /// (the same length) ran out first: four processes storing, reading and signing out at once
    /// saw "database is busy" (ContentionTests). It is tried a few times without a busy handler,
    /// with short pauses in which the lock is free, and otherwise left to the next sign-out.
    func discardLoggedPages(after operation: String) {
        guard let connection else { return }
        var complete = false
        connection.setBusyTimeout(milliseconds: 0)
        defer { connection.setBusyTimeout(milliseconds: VaultOpener.busyTimeoutMilliseconds) }
        for attempt in 0..<Self.checkpointAttempts where !complete {
            if attempt > 0 { usleep(Self.checkpointPauseMicroseconds) }
            do {
                let statement = try connection.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
                // One row: busy (1 when it could not finish), frames in the log, frames checkpointed.
                if try statement.step() { complete = statement.int64(0) == 0 }
                statement.reset()
                // SQLite truncates the log without syncing it; the truncation must survive a crash.
                if complete, FileIO.exists(files.wal) { try FileIO.syncFile(files.wal) }
            } catch {
                complete = false
            }
        }
        if !complete {
            logger.warning(
                "write-ahead log not truncated; earlier pages remain until the next checkpoint",
                metadata: ["vault.operation": "\(operation)"])
        }
    }
}
