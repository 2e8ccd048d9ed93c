/// The files that make up one vault: the database and its sidecars.
public struct VaultFiles: Sendable, Equatable {
    /// The SQLCipher database file.
    public let database: String

    /// The files of the vault whose database is at `database`.
    public init(database: String) { self.database = database }

    /// SQLite's write-ahead log.
    public var wal: String { database + "-wal" }
    /// SQLite's shared-memory index of the write-ahead log.
    public var sharedMemory: String { database + "-shm" }
    /// SQLite's rollback journal (only while a rollback-journal transaction runs).
    public var journal: String { database + "-journal" }
    /// Plaintext header: format, cipher settings, KDF parameters, key check value, generation.
    public var header: String { database + "-header" }
    /// Written by a recovery wipe: why the vault was wiped (no secrets).
    public var tombstone: String { database + "-tombstone" }
    /// A re-encrypted copy being built by `rekey`.
    package var rekeyTemporary: String { database + "-rekey" }
    /// A new database being built by `open`, published under `database` once complete.
    package var creating: String { database + "-creating" }
    /// The rollback journal of `creating` while it is built.
    package var creatingJournal: String { creating + "-journal" }
    /// Lock file held (flock) by the one process spending the refresh token. Holds no data;
    /// never deleted (see `FileLock`).
    package var refreshLock: String { database + "-refresh.lock" }
    /// Lock file held (flock) while a process creates, opens, rekeys or wipes the vault, so no
    /// process ever sees another's half-made files. Holds no data; never deleted.
    package var structureLock: String { database + "-lock" }

    /// Everything a wipe deletes, the header last: it is the proof that the files are this
    /// vault's, so a crash mid-wipe leaves a header (with the key already destroyed: keyMissing,
    /// wiped again) or nothing, never a database that can no longer be proven ours.
    var wipeOrder: [String] { [rekeyTemporary, creating, creatingJournal, wal, sharedMemory, journal, database, header] }
}

extension VaultFiles {
    /// The directory holding the vault files.
    var directory: String { FileIO.parentDirectory(of: database) }
}
