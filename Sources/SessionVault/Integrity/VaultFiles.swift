import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

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

extension VaultFiles {
    /// A rekey's switch, once its header says "rekey pending" durably: the old file's log goes
    /// (everything in it is in the copy), the re-encrypted copy takes the database's name, and
    /// the directory is synced. Done by `Vault.rekey` itself and, after a crash, by the next
    /// open (`VaultOpener.finishRekey`, the roll forward); written once so the two cannot drift.
    func promoteRekeyedCopy() throws(FileIOError) {
        for sidecar in [wal, sharedMemory] { try FileIO.removeIfPresent(sidecar) }
        try FileIO.valueOrErrno(rename(rekeyTemporary, database), "rename", database)
        try FileIO.fsyncDirectory(directory)
    }
}
