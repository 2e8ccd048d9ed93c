#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

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
