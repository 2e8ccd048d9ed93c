/// The files that make up one vault: the database and its sidecars.
public struct VaultFiles: Sendable, Equatable {
    /// The SQLCipher database file.
    public let database: String

    public init(database: String) { self.database = database }

    public var wal: String { database + "-wal" }
    public var sharedMemory: String { database + "-shm" }
    public var journal: String { database + "-journal" }
    /// Plaintext header: format, cipher settings, KDF parameters, key check value, generation.
    public var header: String { database + "-header" }
    /// Written by a recovery wipe: why the vault was wiped (no secrets).
    public var tombstone: String { database + "-tombstone" }
    /// A re-encrypted copy being built by `rekey`.
    public var rekeyTemporary: String { database + "-rekey" }

    /// Everything a wipe deletes, the database last so a crash mid-wipe leaves a database
    /// without its header (classified as corrupted again), never a half-usable vault.
    var wipeOrder: [String] { [rekeyTemporary, wal, sharedMemory, journal, header, database] }
}

extension VaultFiles {
    /// The directory holding the vault files.
    var directory: String { FileIO.parentDirectory(of: database) }
}
