import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

extension Vault {
    /// How long a write waits for another process's rekey, wipe or open to finish with the file.
    static let structureWaitSeconds: TimeInterval = 15

    /// The structure lock (see `VaultFiles.structureLock`) held shared for one write method:
    /// while it is held no other process can replace or delete the database (a rekey or wipe holds
    /// it exclusively), so what the method reads, seals and commits all belong to the file that is
    /// at the path. Taken after any reopen (which takes the lock exclusively itself).
    /// - Returns: the held lock; release it when the method ends (`defer { hold.unlock() }`).
    func holdStableFile() throws(VaultError) -> FileLock {
        for _ in 0..<3 {
            try reloadIfChangedElsewhere()
            let lock = try structureLockHandle()
            let taken: Bool
            do { taken = try lock.lock(within: Self.structureWaitSeconds, shared: true) } catch { throw .io(error) }
            guard taken else {
                throw .unavailable(retryAfter: 1, detail: "another process is rekeying, wiping or creating the vault")
            }
            if FileIdentity.of(files.database) == openedFileIdentity { return lock }
            // Replaced between the check and the lock: reopen and take it again.
            lock.unlock()
        }
        throw .unavailable(retryAfter: 1, detail: "the vault's file keeps being replaced by another process")
    }

    /// This vault's own handle on the structure lock file, opened on first use.
    func structureLockHandle() throws(VaultError) -> FileLock {
        if let structureLock { return structureLock }
        do {
            let lock = try FileLock(path: files.structureLock)
            structureLock = lock
            return lock
        } catch {
            // Something planted where the lock file belongs does not go away by waiting.
            if error.isNotRegularFile || error.errno == ELOOP { throw .misconfigured("the lock file \(files.structureLock) is not a regular file: \(error)") }
            throw .unavailable(retryAfter: 1, detail: "the vault's lock file cannot be opened: \(error)")
        }
    }
}

/// Which file a path names: device and inode. `PRAGMA data_version` sees another process's
/// commits to the file this connection has open, but not that file being unlinked (a wipe) or
/// replaced by another (a rekey's rename): the connection goes on reading the old inode. The
/// identity of the path tells.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` now; nil when there is none (or it cannot be seen).
    static func of(_ path: String) -> FileIdentity? {
        guard let info = try? FileIO.status(path) else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
