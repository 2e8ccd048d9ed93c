import Foundation

extension Vault {
    /// Wipes this vault: crypto-shred (the key provider destroys its key), delete the database
    /// and its -wal, -shm, -journal and header files, fsync the directory. With a `reason`, a
    /// tombstone records why, and the next open reports `missing(.wipedAfterCorruption)`.
    /// The vault is closed afterwards.
    ///
    /// Only this vault's files are wiped: the database it has open (or, with a `reason` the
    /// library diagnosed, the files the damage was found in). When another process replaced
    /// them meanwhile, nothing is wiped: `.changedElsewhere`, and the vault reopens on its next
    /// use to show what is there now.
    public func wipe(reason: CorruptionReason? = nil) throws(VaultError) {
        let diagnosed = reason?.diagnosed ?? ownFilesDiagnosis()
        pollTask?.cancel()
        pollTask = nil
        connection = nil
        do {
            try Vault.recover(at: files.database, keyProvider: keyProvider, reason: reason, diagnosed: diagnosed, now: clock())
        } catch {
            if case .changedElsewhere = error {
                replacedElsewhere = true
                wipedElsewhere = false
            }
            throw error
        }
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
    ///
    /// A `reason` that the library reported (from `open` or any call) names the files the damage
    /// was found in, and only those are wiped: when another process has recovered the vault or
    /// replaced it since (a user signed in afresh), nothing is wiped and the call throws
    /// `.changedElsewhere`: open the vault again and decide on what is there now. A wipe that
    /// follows one cut short keeps the first tombstone (see `VaultWiper`).
    public static func recover(at path: String, keyProvider: (any KeyProvider)?, reason: CorruptionReason?, now: Date = Date()) throws(VaultError) {
        try recover(at: path, keyProvider: keyProvider, reason: reason, diagnosed: reason?.diagnosed, now: now)
    }

    /// `recover(at:keyProvider:reason:now:)`, telling `afterStep` each step of the wipe once it
    /// is done: the crash tests kill the process there.
    package static func recover(
        at path: String, keyProvider: (any KeyProvider)?, reason: CorruptionReason?, diagnosed: DiagnosedFiles?,
        now: Date, afterStep: (String) -> Void = { _ in }
    ) throws(VaultError) {
        let tombstone = reason.map { Tombstone(reason: $0.kind, detail: $0.detail, wipedAt: now) }
        try VaultWiper.wipe(VaultFiles(database: path), keys: keyProvider, tombstone: tombstone, diagnosed: diagnosed, afterStep: afterStep)
    }

    /// The files this open vault stands for: the database it has open and its key check value
    /// (its header's bytes move with every commit, so they are not part of it).
    package func ownFilesDiagnosis() -> DiagnosedFiles {
        DiagnosedFiles(
            database: openedFileIdentity.map { DiagnosedFiles.FileID(device: $0.device, inode: $0.inode) }, header: nil, headerBytes: nil,
            keyCheckValue: keys.keyCheckValue, keyFilePath: nil, keyFile: nil, wholeHeader: false)
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
