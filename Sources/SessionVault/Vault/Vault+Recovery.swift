import Foundation

extension Vault {
    /// Wipes this vault: crypto-shred (the key provider destroys its key), delete the database
    /// and its -wal, -shm, -journal and header files, fsync the directory. With a `reason`, a
    /// tombstone records why, and the next open reports `missing(.wipedAfterCorruption)`.
    /// The vault is closed afterwards.
    public func wipe(reason: CorruptionReason? = nil) throws(VaultError) {
        pollTask?.cancel()
        pollTask = nil
        connection = nil
        try Vault.recover(at: files.database, keyProvider: keyProvider, reason: reason, now: clock())
        emit(.wiped(reason?.kind))
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    /// The recovery after a `corrupted` outcome, without an open vault: wipes every file of the
    /// vault at `path` and leaves a tombstone (reason, time, version; no secrets). Idempotent and
    /// crash-safe (see `VaultWiper`). The next `open` creates a fresh, empty vault.
    ///
    /// Refuses with `.misconfigured`, changing nothing, when the files cannot be proven this
    /// vault's: a plain SQLite database or a link at `path`, a database with no header of ours
    /// beside it, a header without our magic, a key file that is not ours. A key that fails this
    /// vault's key check value (another vault's) is left in place; a damaged key file of ours is
    /// moved aside (`KeyFileProvider.destroyKey`), never destroyed.
    public static func recover(at path: String, keyProvider: (any KeyProvider)?, reason: CorruptionReason?, now: Date = Date()) throws(VaultError) {
        let tombstone = reason.map { Tombstone(reason: $0.kind, detail: $0.detail, wipedAt: now) }
        try VaultWiper.wipe(VaultFiles(database: path), keys: keyProvider, tombstone: tombstone)
    }

    /// The tombstone left by the last recovery wipe, if any; nil too when it cannot be read
    /// (see `readTombstone(at:)` to tell the two apart).
    public static func tombstone(at path: String) -> Tombstone? {
        try? readTombstone(at: path)
    }

    /// The tombstone left by the last recovery wipe; nil when there is none.
    /// - Throws: `.io` when the tombstone path cannot be read or is not a regular file (a FIFO
    ///   there is refused at once, never waited on).
    package static func readTombstone(at path: String) throws(VaultError) -> Tombstone? {
        do {
            return try Tombstone.read(at: VaultFiles(database: path).tombstone)
        } catch {
            throw .io(error)
        }
    }
}
